import numpy as np
import torch
from torch import nn


class Calibrated(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(5, 1)

    def forward(self, x):
        raw = torch.sigmoid(self.fc(x)).squeeze(-1)
        calibrated = np.interp(raw.detach().numpy(), [0.0, 0.5, 1.0], [0.0, 0.3, 1.0])
        return torch.from_numpy(calibrated).float()


torch.manual_seed(0)
model = torch.compile(Calibrated(), backend="eager")
x = torch.randn(6, 5)
for _ in range(3):
    p = model(x)
print("p", [round(v, 5) for v in p.tolist()])
