import torch


@torch.compile(backend="eager")
def evaluate(pred, target, weight):
    return ((pred - target) ** 2).mean() + weight * pred.abs().mean()


torch.manual_seed(0)
pred, target = torch.randn(20), torch.randn(20)
values = [evaluate(pred, target, torch.tensor(w / 10)).item() for w in range(12)]
print("values", [round(v, 5) for v in values])
