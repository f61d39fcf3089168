# triggers TCD211 at line 5 (variable: x)
import torch


def scale_rows(x):
    return x * 2.0


f = torch.compile(scale_rows, backend="eager", dynamic=False)
base = torch.randn(4, 4)
f(base)
f(base.t())
