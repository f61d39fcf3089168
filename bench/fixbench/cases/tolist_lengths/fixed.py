import torch
from torch import nn


class MeanPool(nn.Module):
    """Mean of each sequence's first `length` tokens."""

    def forward(self, hidden, lengths):
        positions = torch.arange(hidden.shape[1], device=hidden.device)
        mask = (positions.unsqueeze(0) < lengths.unsqueeze(1)).to(hidden.dtype)
        return (hidden * mask.unsqueeze(-1)).sum(1) / mask.sum(1, keepdim=True)


torch.manual_seed(0)
pool = torch.compile(MeanPool(), backend="eager")
for _ in range(3):
    hidden = torch.randn(4, 7, 5)
    lengths = torch.randint(1, 8, (4,))
    out = pool(hidden, lengths)
print(f"pooled {out.sum().item():.5f} {out.abs().max().item():.5f}")
