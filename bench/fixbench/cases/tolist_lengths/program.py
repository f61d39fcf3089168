import torch
from torch import nn


class MeanPool(nn.Module):
    """Mean of each sequence's first `length` tokens."""

    def forward(self, hidden, lengths):
        pooled = []
        for i, n in enumerate(lengths.tolist()):
            pooled.append(hidden[i, :n].mean(0))
        return torch.stack(pooled)


torch.manual_seed(0)
pool = torch.compile(MeanPool(), backend="eager")
for _ in range(3):
    hidden = torch.randn(4, 7, 5)
    lengths = torch.randint(1, 8, (4,))
    out = pool(hidden, lengths)
print(f"pooled {out.sum().item():.5f} {out.abs().max().item():.5f}")
