# triggers TCD223 at line 7 (variable: seen)
import torch

seen = []  # grows by one on every call


@torch.compile(backend="eager")
def accumulate(x):
    seen.append(x.shape[0])
    return x * len(seen)


for _ in range(3):
    accumulate(torch.randn(4))
