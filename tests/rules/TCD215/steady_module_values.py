# triggers TCD215 at line 16
import torch
import torch.nn as nn


class Scale(nn.Module):
    def __init__(self, factor):
        super().__init__()
        self.factor = factor  # a constant of this block: guarded as `self.blocks[k].factor == k`

    def forward(self, x):
        return x * self.factor


class Chain(nn.Module):
    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


chain = Chain()
chain.blocks = nn.ModuleList(Scale(1 + i % 3) for i in range(24))
compiled = torch.compile(chain, backend="eager")
compiled(torch.ones(3))
compiled(torch.ones(5))  # a shape recompile: the factors are guarded again, unchanged
