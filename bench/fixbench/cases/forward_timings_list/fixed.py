import time

import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 16))
        self.timings = []

    def forward(self, x):
        h = self.body(x)
        out = h.softmax(-1)
        return out


torch.manual_seed(0)
model = Encoder()
cmodel = torch.compile(model, backend="eager")
x = torch.randn(8, 32)
for _ in range(4):
    t0 = time.perf_counter()
    out = cmodel(x)
    cmodel.timings.append(time.perf_counter() - t0)
print(f"calls timed {len(model.timings)}")
print(f"mean {out.mean().item():.5f} max {out.max().item():.5f}")
