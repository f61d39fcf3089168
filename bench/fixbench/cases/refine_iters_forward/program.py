import torch
from torch import nn


class UpdateBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(8, 16), nn.Linear(16, 8)

    def forward(self, h):
        return self.fc2(torch.nn.functional.gelu(self.fc1(h)))


class Refiner(nn.Module):
    """Iterative refinement (RAFT-style): the update block is applied `iters` times."""

    def __init__(self):
        super().__init__()
        self.update = UpdateBlock()

    def forward(self, x, iters):
        flow = torch.zeros_like(x)
        for _ in range(iters):
            flow = flow + 0.1 * self.update(x + flow)
        return flow


torch.manual_seed(0)
model = Refiner().eval()
compiled = torch.compile(model, backend="eager")
x = torch.randn(4, 8)
out = []
with torch.no_grad():
    for iters in (3, 5, 7, 9):
        out.append(compiled(x, iters).abs().sum().item())
print("flow sums", [round(v, 5) for v in out])
