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
        self.levels = noise_levels()

    def forward(self, x):
        sigma = next(self.levels)
        return self.net(x) / (1.0 + sigma)


torch.manual_seed(0)
model = torch.compile(Denoiser(), backend="eager")
x = torch.randn(2, 6)
outs = [model(x).sum().item() for _ in range(4)]
print("outs", [round(v, 5) for v in outs])
