import os

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.lin = nn.Linear(dim, dim)

    def forward(self, x):
        h = self.lin(x)
        if os.path.exists("clamp_activations.flag"):  # a debug switch read from disk
            h = h.clamp(-1.0, 1.0)
        return torch.tanh(h) + x


torch.manual_seed(0)
model = torch.compile(nn.Sequential(*[Block(8) for _ in range(3)]), backend="eager")
with torch.no_grad():
    outs = [model(torch.randn(4, 8)) for _ in range(3)]
print("out", [round(v, 4) for v in torch.stack(outs).sum(dim=(0, 1)).tolist()])
