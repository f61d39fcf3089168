"""A tensor, then a float, passed to the same compiled function as one argument."""

import torch


@torch.compile(backend="eager")
def scaled(x, factor):
    return x * factor


x = torch.randn(8)
scaled(x, torch.tensor(0.5))
scaled(x, 0.5)
