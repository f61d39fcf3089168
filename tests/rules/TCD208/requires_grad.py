# triggers TCD208 at line 5 (variable: w)
import torch


def affine(x, w):
    return x * w + 1


f = torch.compile(affine, backend="eager")
x = torch.ones(4)
w = torch.ones(4, requires_grad=True)
f(x, w).sum().backward()
f(x, w.detach())
