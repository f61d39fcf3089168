import torch
from torch import nn


class MaskedL1(nn.Module):
    """L1 depth loss over the pixels with a valid (positive) ground truth."""

    def forward(self, pred, target):
        valid = (target > 0).to(pred.dtype)
        return ((pred - target).abs() * valid).sum() / valid.sum()


torch.manual_seed(0)
loss_fn = torch.compile(MaskedL1(), backend="eager")
losses = []
for _ in range(4):
    target = torch.relu(torch.randn(2, 8, 8))
    pred = torch.rand(2, 8, 8)
    losses.append(loss_fn(pred, target).item())
print("losses", [round(v, 5) for v in losses])
