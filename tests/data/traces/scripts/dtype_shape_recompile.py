# Recompiles for dtype and then shape (dynamic=False: no automatic dynamic shapes).
import torch


def fn(x):
    return x.sin() + 1


compiled = torch.compile(fn, backend="eager", dynamic=False)
compiled(torch.ones(4, dtype=torch.float32))
compiled(torch.ones(4, dtype=torch.float64))
compiled(torch.ones(5, dtype=torch.float64))
