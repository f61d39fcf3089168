"""A layer stack called once: the first layer gets `position_bias=None` and makes the bias, the others get it
passed. The stack's forward runs eagerly (disabled, not recursively), so each layer call enters the compiled
`Layer.forward`: one recompile inside the one call (None -> a tensor), no second call to reuse the entries."""

import torch
from torch import nn


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x, position_bias=None):
        if position_bias is None:
            position_bias = torch.zeros(8)
        return self.fc(x) + position_bias, position_bias


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(Layer() for _ in range(4))

    @torch.compiler.disable(recursive=False)
    def forward(self, x):
        bias = None
        for layer in self.layers:
            x, bias = layer(x, bias)
        return x


model = torch.compile(Stack(), backend="eager")
with torch.no_grad():
    print(model(torch.randn(2, 8)).shape)
