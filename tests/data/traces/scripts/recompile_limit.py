# An int counter attribute on a module, incremented in forward: one recompile per value until the
# recompile limit (8) is hit; after that the frame runs eagerly.
import torch
import torch.nn as nn


class Counter(nn.Module):
    def __init__(self):
        super().__init__()
        self.step = 0

    def forward(self, x):
        self.step += 1
        return x * self.step


model = torch.compile(Counter(), backend="eager")
for _ in range(12):
    model(torch.ones(2, 4))
