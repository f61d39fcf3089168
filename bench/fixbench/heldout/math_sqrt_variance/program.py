import math

import torch


@torch.compile(backend="eager")
def standardize(x):
    mean = x.mean()
    var = ((x - mean) ** 2).mean()
    return (x - mean) / math.sqrt(var + 1e-5)


torch.manual_seed(0)
outs = [standardize(torch.randn(10) * 3 + 1) for _ in range(3)]
print("max", [round(o.max().item(), 5) for o in outs])
