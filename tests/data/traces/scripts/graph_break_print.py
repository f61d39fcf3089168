# One graph break: a print() inside a compiled function.
import torch


def fn(x):
    y = x * 2
    print("inside fn")
    return y + 1


compiled = torch.compile(fn, backend="eager")
compiled(torch.ones(4))
