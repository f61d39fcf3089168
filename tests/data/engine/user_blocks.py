# The same loop as builtin_blocks.py over blocks of the user's own class: regional compilation is offered.
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(4, 4, 3, padding=1)

    def forward(self, x):
        return torch.relu(self.conv(x))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Block() for _ in range(3)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
            if x.sum() > 1000:  # a layer-drop style branch between the blocks
                x = x / 2
        return x


model = torch.compile(Net(), backend="eager")
print(float(model(torch.ones(1, 4, 8)).sum()))
