import torch


def make_loss(weight):
    def loss(pred, target):
        return ((pred - target) ** 2).mean() + weight * pred.abs().mean()

    return loss


@torch.compile(backend="eager")
def evaluate(pred, target, loss_fn):
    return loss_fn(pred, target)


torch.manual_seed(0)
pred, target = torch.randn(20), torch.randn(20)
values = [evaluate(pred, target, make_loss(w / 10)).item() for w in range(12)]
print("values", [round(v, 5) for v in values])
