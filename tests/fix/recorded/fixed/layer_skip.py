"""doctor fix case: a model's forward loops over its blocks and skips a block on a data-dependent test between
them (as a layer-drop branch does), so torch cannot compile the loop; compiling each block instead of the model
(regional compilation over the model's real module list) leaves the loop eager and compiles every block whole."""

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(8, 8)

    def forward(self, x):
        return torch.relu(self.linear(x)) + x


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(Block() for _ in range(4))

    def forward(self, x):
        for layer in self.layers:
            if x.abs().mean() > 100:  # a block is skipped on exploding activations
                continue
            x = layer(x)
        return x


torch.manual_seed(0)
model = Net()
compiled = model
for block in compiled.layers:
    block.compile(backend="eager")
for step in range(3):
    print(f"step {step}: {compiled(torch.randn(2, 8)).sum().item():.4f}")
