import importlib

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, activation="torch.nn.functional:silu"):
        super().__init__()
        module_name, func_name = activation.split(":")
        self.act = getattr(importlib.import_module(module_name), func_name)
        self.fc = nn.Linear(12, 12)

    def forward(self, x):
        return self.act(self.fc(x))


torch.manual_seed(0)
model = torch.compile(Block(), backend="eager")
x = torch.randn(3, 12)
for _ in range(3):
    y = model(x)
print(f"y {y.sum().item():.5f}")
