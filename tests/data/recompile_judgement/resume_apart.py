"""A function and the resume function after its graph break recompile on the same change (the batch size):
two compiled functions with their own cache entries, each reported as such."""

import torch


@torch.compile(backend="eager")
def normalise(x):
    y = x - x.mean()
    print("centred")  # a graph break: the rest runs in a resume function
    return y / (y.std() + 1e-6)


for n in (4, 6):
    normalise(torch.randn(n, 3))
