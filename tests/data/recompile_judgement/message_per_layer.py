"""A layer stack called once whose layers get a note with a tensor's value formatted into it: the guard on
the note holds a value that is new on every call, so each layer call compiles again (4 entries in the one
call), and every later call would too, up to the recompile limit."""

import torch
from torch import nn


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x, note=""):
        if "nan" in note:
            x = torch.nan_to_num(x)
        return self.fc(x)


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(Layer() for _ in range(4))

    @torch.compiler.disable(recursive=False)
    def forward(self, x):
        for layer in self.layers:
            x = layer(x, note=f"input mean {x.mean()}")
        return x


model = torch.compile(Stack(), backend="eager")
with torch.no_grad():
    print(model(torch.randn(2, 8)).shape)
