# triggers TCD302 at line 7
import torch

cache = torch.zeros(16, 4)  # allocated once at a fixed length


@torch.compile(backend="eager", dynamic=True)
def prefill(x):
    if x.shape[0] == cache.shape[0]:  # the size meets the fixed-size cache: specialized again
        return x + cache
    return x * 2


for n in (16, 8, 12):
    prefill(torch.ones(n, 4))
