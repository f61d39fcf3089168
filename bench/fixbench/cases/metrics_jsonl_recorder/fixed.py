import io
import json

import torch
from torch import nn

metrics_file = io.StringIO()


def record(name, value):
    metrics_file.write(json.dumps({"name": name, "value": value}) + "\n")


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, x, target):
        pred = self.net(x).squeeze(-1)
        return torch.nn.functional.mse_loss(pred, target)


torch.manual_seed(0)
model = torch.compile(Regressor(), backend="eager")
opt = torch.optim.SGD(model.parameters(), lr=0.05)
x, t = torch.randn(32, 10), torch.randn(32)
for _ in range(4):
    opt.zero_grad()
    loss = model(x, t)
    record("batch_size", x.shape[0])
    loss.backward()
    opt.step()
print(f"records {len(metrics_file.getvalue().splitlines())}")
print(f"loss {loss.item():.5f}")
