import numpy as np
import torch
from torch import nn

np.random.seed(0)
torch.manual_seed(0)


class Augment(nn.Module):
    def forward(self, x, scale):
        return x * scale


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.augment = Augment()
        self.fc = nn.Linear(6, 3)

    def forward(self, x, scale):
        return self.fc(self.augment(x, scale))


compiled = torch.compile(Model(), backend="eager")
x = torch.randn(4, 6)
outs = [compiled(x, torch.tensor(np.random.uniform(0.8, 1.2), dtype=torch.float32)).sum().item() for _ in range(4)]
print("outs", [round(v, 5) for v in outs])
