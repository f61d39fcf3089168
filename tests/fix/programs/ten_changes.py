"""doctor fix bench case with ten candidate fixes: breaks of several kinds and recompiles, each in a function of its
own, each fixable on its own (bench/fix_cost.py measures what `doctor fix` costs on it against one plain run)."""

import math

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


@torch.compile(backend="eager")
def spread(x):
    return x / math.sqrt(x.var())


@torch.compile(backend="eager")
def shout(x):
    y = x + 1
    print("shout")
    return y * 2


total = 0.0
for n in range(1, 6):
    x = torch.ones(4) * (n - 3)
    total += float(step(x, n).sum()) + float(norm(x + 10).sum()) + float(flip(x).sum())
    total += float(spread(x + torch.arange(4.0)).sum()) + float(shout(x).sum())
print(f"total {total:.4f}")
