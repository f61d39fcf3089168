"""Each step's loss appended to a global list with `.item()`: the code resumed after the break is guarded on the
list's bound `append` method, which is freed once the call returns, so torch drops that compiled code."""

import torch

losses = []


@torch.compile(backend="eager")
def train_step(x, w):
    y = x @ w
    losses.append(y.mean().item())
    return y.relu()


w = torch.randn(8, 8)
for _ in range(3):
    train_step(torch.randn(4, 8), w)
