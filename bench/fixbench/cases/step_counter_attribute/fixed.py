import torch
from torch import nn


class NoisyLayer(nn.Module):
    """Adds noise that decays with the number of calls."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.register_buffer("num_calls", torch.tensor(0.0))

    def forward(self, x):
        self.num_calls.add_(1)
        decay = 1.0 / (1 + self.num_calls)
        return self.fc(x) * (1 - decay)


torch.manual_seed(0)
model = torch.compile(NoisyLayer(), backend="eager")
x = torch.randn(2, 8)
outs = [model(x).sum().item() for _ in range(6)]
print("outs", [round(v, 5) for v in outs])
