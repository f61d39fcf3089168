import time

import torch
from torch import nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(16, 32), nn.Tanh(), nn.Linear(32, 1))
opt = torch.optim.SGD(net.parameters(), lr=0.05)


@torch.compile(backend="eager")
def train_step(x, y):
    loss = nn.functional.mse_loss(net(x), y)
    return loss


x, y = torch.randn(32, 16), torch.randn(32, 1)
step_times = []
for _ in range(5):
    start = time.time()
    loss = train_step(x, y)
    elapsed = time.time() - start
    opt.zero_grad()
    loss.backward()
    opt.step()
    step_times.append(elapsed)
print(f"steps timed {len(step_times)} all positive {all(t >= 0 for t in step_times)}")
print(f"loss {loss.item():.5f}")
