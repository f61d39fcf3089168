import functools
import time
from collections import defaultdict

import torch

TIMINGS = defaultdict(list)


def timed(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        result = fn(*args, **kwargs)
        TIMINGS[fn.__name__].append(time.perf_counter() - start)
        return result

    return wrapper


@timed
def encode(x, w):
    return torch.tanh(x @ w)


def forward(x, w):
    h = encode(x, w)
    return h.mean(-1)


torch.manual_seed(0)
w = torch.randn(12, 12)
cforward = torch.compile(forward, backend="eager")
x = torch.randn(4, 12)
for _ in range(3):
    y = cforward(x, w)
print(f"encode timed {len(TIMINGS['encode'])}")
print(f"y {y.sum().item():.5f}")
