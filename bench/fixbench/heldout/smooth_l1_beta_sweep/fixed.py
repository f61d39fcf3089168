import torch


@torch.compile(backend="eager")
def evaluate(pred, target, beta):
    # SmoothL1Loss written out, so beta can be a tensor instead of a new module per value
    diff = (pred - target).abs()
    return torch.where(diff < beta, 0.5 * diff**2 / beta, diff - 0.5 * beta).mean()


torch.manual_seed(0)
pred, target = torch.randn(20), torch.randn(20)
betas = [0.1 + i / 10 for i in range(12)]
values = [evaluate(pred, target, torch.tensor(beta)).item() for beta in betas]
print("values", [round(v, 5) for v in values])
