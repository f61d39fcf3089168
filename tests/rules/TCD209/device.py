# triggers TCD209 at line 5 (variable: x)
import torch


def head(x):
    return x.relu() * 2 + 1


f = torch.compile(head, backend="eager")
x = torch.ones(4)
f(x)
shape_only = f(x.to("meta"))
