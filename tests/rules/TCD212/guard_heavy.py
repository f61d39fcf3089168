# triggers TCD212 at line 16
import torch
import torch.nn as nn


class Shift(nn.Module):
    def __init__(self, amount):
        super().__init__()
        self.amount = amount

    def forward(self, x):
        return x + self.amount


class Chain(nn.Module):
    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


chain = Chain()
chain.blocks = nn.ModuleList(Shift(i) for i in range(60))
torch.compile(chain, backend="eager")(torch.zeros(3))
