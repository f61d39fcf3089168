"""doctor fix case: a `.item()` break (a config switch fixes it), a Python int that recompiles (a keyword of the
torch.compile call fixes it) and a branch on a tensor's value (torch.where at the user's line fixes it)."""

import torch


def scale(x, n):
    return x * n + 1


step = torch.compile(scale, backend="eager")


@torch.compile(backend="eager")
def norm(x):
    s = x.sum().item()
    return x / s


@torch.compile(backend="eager")
def flip(x):
    x = x * 2.0
    if x.sum() < 0:
        return -x
    return x


total = 0.0
for n in range(1, 6):
    x = torch.ones(4) * (n - 3)
    total += float(step(x, n).sum()) + float(norm(x + 10).sum()) + float(flip(x).sum())
print(f"total {total:.4f}")
