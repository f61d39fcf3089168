import torch
from torch import nn


class Calibrated(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(5, 1)

    def forward(self, x):
        raw = torch.sigmoid(self.fc(x)).squeeze(-1).detach()
        # np.interp over the knots (0, 0), (0.5, 0.3), (1, 1), written with torch ops
        low = raw * (0.3 / 0.5)
        high = 0.3 + (raw - 0.5) * (0.7 / 0.5)
        return torch.where(raw <= 0.5, low, high)


torch.manual_seed(0)
model = torch.compile(Calibrated(), backend="eager")
x = torch.randn(6, 5)
for _ in range(3):
    p = model(x)
print("p", [round(v, 5) for v in p.tolist()])
