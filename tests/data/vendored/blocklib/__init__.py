"""A mixture-of-experts model as libraries write one: repeated blocks, each routing tokens to the experts
its router picked (a loop over `nonzero()`: a data-dependent operator inside every block)."""

import torch
from torch import nn


class ExpertsBlock(nn.Module):
    def __init__(self, d: int, experts: int) -> None:
        super().__init__()
        self.router = nn.Linear(d, experts)
        self.experts = nn.ModuleList(nn.Linear(d, d) for _ in range(experts))

    def forward(self, x):
        chosen = self.router(x).argmax(-1)
        out = torch.zeros_like(x)
        for expert_idx in torch.unique(chosen).tolist():
            rows = (chosen == expert_idx).nonzero().squeeze(-1)
            out[rows] = self.experts[expert_idx](x[rows])
        return x + out


class ExpertsModel(nn.Module):
    def __init__(self, d: int = 8, depth: int = 2, experts: int = 4) -> None:
        super().__init__()
        self.layers = nn.ModuleList(ExpertsBlock(d, experts) for _ in range(depth))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
