# triggers TCD104 at line 7
import torch


def clipped(x):
    h = x * 2
    if h.mean().item() > 10:
        return h / h.mean()
    return h


print(torch.compile(clipped, backend="eager")(torch.full((4,), 8.0)))
