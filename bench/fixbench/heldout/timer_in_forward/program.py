import time

import torch
from torch import nn


class TimedMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(32, 64)
        self.fc2 = nn.Linear(64, 32)
        self.elapsed = []

    def forward(self, x):
        start = time.perf_counter()
        y = self.fc2(torch.relu(self.fc1(x)))
        self.elapsed.append(time.perf_counter() - start)
        return y


torch.manual_seed(0)
net = TimedMLP()
model = torch.compile(net, backend="eager")
x = torch.randn(16, 32)
for _ in range(5):
    out = model(x)
print(f"calls timed {len(net.elapsed)}")
print(f"sum {out.sum().item():.5f}")
