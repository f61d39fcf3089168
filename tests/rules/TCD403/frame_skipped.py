# triggers TCD403 at line 9
import torch


def power_iteration(w, v):
    for i in range(3):
        v = w @ v
        v = v / v.norm()
        print("iteration", i, v.norm())
    return v


f = torch.compile(power_iteration, backend="eager")
f(torch.eye(3), torch.ones(3))
