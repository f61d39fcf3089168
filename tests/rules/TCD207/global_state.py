# triggers TCD207 at line 5
import torch


def project(a, b):
    return a @ b + 1


f = torch.compile(project, backend="eager")
a, b = torch.ones(4, 4), torch.ones(4, 4)
f(a, b)
with torch.autocast("cpu", dtype=torch.bfloat16):
    f(a, b)
