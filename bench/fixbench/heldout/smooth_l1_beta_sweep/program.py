import torch
from torch import nn


@torch.compile(backend="eager")
def evaluate(pred, target, criterion):
    return criterion(pred, target)


torch.manual_seed(0)
pred, target = torch.randn(20), torch.randn(20)
betas = [0.1 + i / 10 for i in range(12)]
values = [evaluate(pred, target, nn.SmoothL1Loss(beta=beta)).item() for beta in betas]
print("values", [round(v, 5) for v in values])
