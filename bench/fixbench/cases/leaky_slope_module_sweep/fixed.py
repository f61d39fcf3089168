import torch
from torch import nn


class Probe(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(12, 24)
        self.head = nn.Linear(24, 3)

    def forward(self, x, negative_slope):
        # leaky_relu written out, so the slope can be a tensor (graph data, not a constant)
        h = self.hidden(x)
        return self.head(torch.where(h >= 0, h, h * negative_slope))


torch.manual_seed(0)
probe = Probe()
compiled = torch.compile(probe, backend="eager", dynamic=False)
x = torch.randn(32, 12)
scores = {}
with torch.no_grad():
    for slope in [0.0, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4]:
        scores[slope] = compiled(x, torch.tensor(slope)).std().item()
print("spread", {k: round(v, 5) for k, v in scores.items()})
