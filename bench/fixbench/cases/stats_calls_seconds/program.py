import time

import torch

stats = {"calls": 0, "seconds": 0.0}
torch.manual_seed(0)
weight = torch.randn(24, 24)


def score(x):
    stats["calls"] += 1
    t0 = time.perf_counter()
    h = torch.relu(x @ weight)
    s = (h * h).sum(-1).sqrt()
    stats["seconds"] += time.perf_counter() - t0
    return s


cscore = torch.compile(score, backend="eager")
x = torch.randn(10, 24)
for _ in range(6):
    s = cscore(x)
print(f"calls {stats['calls']} timed {stats['seconds'] > 0}")
print(f"score sum {s.sum().item():.4f}")
