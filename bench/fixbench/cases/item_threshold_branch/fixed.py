import torch
from torch import nn


class GradientClipper(nn.Module):
    """Scales an update down when its norm exceeds a threshold."""

    def __init__(self, max_norm=1.0):
        super().__init__()
        self.max_norm = max_norm

    def forward(self, update):
        norm = update.norm()
        factor = torch.where(norm > self.max_norm, self.max_norm / norm, torch.ones_like(norm))
        return update * factor


torch.manual_seed(0)
clip = torch.compile(GradientClipper(max_norm=2.0), backend="eager")
total = torch.zeros(6)
for scale in (0.1, 1.0, 3.0, 0.5):
    total += clip(torch.randn(6) * scale)
print("total", [round(v, 4) for v in total.tolist()])
