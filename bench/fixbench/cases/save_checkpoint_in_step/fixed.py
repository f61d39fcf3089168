import io

import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 12), nn.Tanh(), nn.Linear(12, 1))
checkpoints = []


@torch.compile(backend="eager")
def compute_loss(x, y):
    pred = model(x)
    return ((pred - y) ** 2).mean()


def evaluate(x, y, step):
    loss = compute_loss(x, y)
    buffer = io.BytesIO()
    torch.save({"step": step, "loss": loss.detach()}, buffer)
    checkpoints.append(buffer.getvalue())
    return loss


x, y = torch.randn(20, 6), torch.randn(20, 1)
with torch.no_grad():
    losses = [evaluate(x, y, 0).item() for _ in range(3)]
print(f"checkpoints {len(checkpoints)} loss {losses[-1]:.5f}")
