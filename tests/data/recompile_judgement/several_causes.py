"""One compiled aggregation whose recompiles have three causes, each in its own guard failure: a node count
(once, then dynamic), the `reduce` string, and grad mode (the evaluation pass). It ends holding 8 cache
entries, torch's default recompile limit: one more new state would run it eagerly."""

import torch


@torch.compile(backend="eager")
def aggregate(x, reduce):
    if reduce == "sum":
        return x.sum(0)
    if reduce == "mean":
        return x.mean(0)
    if reduce == "max":
        return x.amax(0)
    return x.amin(0)


w = torch.randn(5, requires_grad=True)
aggregate(torch.randn(4, 5) * w, "sum")
for reduce in ("sum", "mean", "max", "min"):
    aggregate(torch.randn(6, 5) * w, reduce)
with torch.no_grad():
    for reduce in ("sum", "mean", "max"):
        aggregate(torch.randn(6, 5) * w, reduce)
