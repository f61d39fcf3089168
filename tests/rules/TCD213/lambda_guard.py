# triggers TCD213 at line 5
import torch


def blend(x, alpha):
    return x * alpha + (1 - alpha)


f = torch.compile(blend, backend="eager")
for alpha in (0.1, 0.2, 0.3):
    f(torch.ones(3), alpha)
