# triggers TCD115 at line 11
import torch


def batches():
    for i in range(3):
        yield torch.full((2,), float(i))


def step(x, it):
    batch = next(it)
    return x + batch


it = batches()
f = torch.compile(step, backend="eager")
f(torch.ones(2), it)
