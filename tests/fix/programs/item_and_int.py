"""doctor fix case: a `.item()` break (a config switch fixes it) and a Python int that recompiles (a keyword of
the torch.compile call fixes it)."""

import torch


def scale(x, n):
    return x * n + 1


step = torch.compile(scale, backend="eager")


@torch.compile(backend="eager")
def norm(x):
    s = x.sum().item()
    return x / s


total = 0.0
for n in range(1, 6):
    x = torch.ones(4)
    total += float(step(x, n).sum()) + float(norm(x).sum())
print(f"total {total:.4f}")
