import torch
from torch import nn


class PadMasker(nn.Module):
    """Zeroes padded positions, but only when the batch has any padding."""

    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, pad):
        h = self.proj(x)
        h = h.masked_fill(pad.unsqueeze(-1), 0.0)  # a no-op where nothing is padded
        return h.relu().sum(dim=1)


torch.manual_seed(0)
model = torch.compile(PadMasker(8), backend="eager")
total = torch.zeros(8)
for n_pad in (0, 2, 0, 1):
    x = torch.randn(2, 5, 8)
    pad = torch.zeros(2, 5, dtype=torch.bool)
    pad[:, 5 - n_pad :] = True
    total += model(x, pad).sum(dim=0)
print("total", [round(v, 4) for v in total.tolist()])
