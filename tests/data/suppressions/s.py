import torch


@torch.compile(backend="eager")
def f(x):
    y = x * 2
    print("y")  # doctor: ignore[TCD101]
    z = y.sum().item()  # doctor: ignore[TCD199]
    return y + z  # doctor: ignore


f(torch.ones(3))
