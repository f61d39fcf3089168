# triggers TCD224 at line 7 (variable: lookup)
import torch

scales = {"encoder": 0.5}


@torch.compile(backend="eager")
def scaled(x, lookup):
    return x * lookup("encoder", 1.0)


for _ in range(3):
    scaled(torch.randn(4), scales.get)  # a new bound method on every call
