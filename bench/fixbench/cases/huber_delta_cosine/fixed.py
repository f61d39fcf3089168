import math

import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.02)


def delta_at(step, total=12):
    # the Huber threshold shrinks from 2.0 to 0.5 on a cosine schedule
    return 0.5 + 0.75 * (1 + math.cos(math.pi * step / total))


@torch.compile(backend="eager")
def train_step(x, y, delta):
    # huber_loss written out: its `delta` must be a Python float, here it is a tensor (graph data)
    error = (model(x) - y).abs()
    loss = torch.where(error < delta, 0.5 * error**2, delta * (error - 0.5 * delta)).mean()
    loss.backward()
    return loss


x, y = torch.randn(64, 8), 3 * torch.randn(64, 1)
losses = []
for step in range(12):
    opt.zero_grad()
    losses.append(train_step(x, y, torch.tensor(delta_at(step))).item())
    opt.step()
print("losses", [round(v, 5) for v in losses[::3]])
