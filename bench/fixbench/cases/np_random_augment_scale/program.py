import numpy as np
import torch
from torch import nn

np.random.seed(0)
torch.manual_seed(0)


class Augment(nn.Module):
    def forward(self, x):
        scale = np.random.uniform(0.8, 1.2)
        return x * float(scale)


model = nn.Sequential(Augment(), nn.Linear(6, 3))
compiled = torch.compile(model, backend="eager")
x = torch.randn(4, 6)
outs = [compiled(x).sum().item() for _ in range(4)]
print("outs", [round(v, 5) for v in outs])
