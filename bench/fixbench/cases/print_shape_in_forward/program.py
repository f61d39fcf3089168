import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(16, 32)
        self.out = nn.Linear(32, 8)

    def forward(self, x):
        h = torch.relu(self.proj(x))
        print("debug: hidden", tuple(h.shape))
        return self.out(h)


torch.manual_seed(0)
model = torch.compile(Encoder(), backend="eager")
total = 0.0
for _ in range(4):
    y = model(torch.randn(4, 16))
    total += y.sum().item()
print(f"total {total:.4f}")
