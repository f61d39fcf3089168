import torch
from torch import nn

MULTI_GPU = torch.cuda.device_count() > 1


class Router(nn.Module):
    def __init__(self):
        super().__init__()
        self.small = nn.Linear(8, 4)
        self.large = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 4))

    def forward(self, x):
        if MULTI_GPU:
            return self.large(x)
        return self.small(x)


torch.manual_seed(0)
model = torch.compile(Router(), backend="eager")
x = torch.randn(5, 8)
for _ in range(3):
    y = model(x)
print(f"y {y.sum().item():.5f}")
