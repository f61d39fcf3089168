"""A recompile on a global list's emptiness: the compiled code branches on whether the list is empty."""

import torch

messages = []


@torch.compile(backend="eager")
def step(x):
    if messages:
        return x + 1
    return x - 1


step(torch.randn(4))
messages.append("warm-up done")
step(torch.randn(4))
