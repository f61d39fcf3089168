"""A `.item()` reused as a scale: the number leaves the graph and comes back as a Python float."""

import torch


@torch.compile(backend="eager")
def normalise(x):
    scale = x.abs().max().item()
    return x / scale


for _ in range(3):
    normalise(torch.randn(16))
