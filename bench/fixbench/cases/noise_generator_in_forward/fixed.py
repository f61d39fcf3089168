import torch
from torch import nn


def noise_levels():
    level = 1.0
    while True:
        yield level
        level *= 0.8


class Denoiser(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(6, 6)

    def forward(self, x, sigma):
        return self.net(x) / (1.0 + sigma)


torch.manual_seed(0)
model = torch.compile(Denoiser(), backend="eager")
levels = noise_levels()
x = torch.randn(2, 6)
outs = [model(x, torch.tensor(next(levels))).sum().item() for _ in range(4)]
print("outs", [round(v, 5) for v in outs])
