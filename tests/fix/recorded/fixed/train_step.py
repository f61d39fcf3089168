"""doctor fix case: a whole training step compiled, backward and optimizer calls included; moving them after the
call (AOTAutograd compiles the backward of the returned loss) leaves one graph."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.1)


@torch.compile(backend="aot_eager")
def train_step(x, y):
    loss = F.cross_entropy(model(x), y)
    return loss


for step in range(3):
    x, y = torch.randn(16, 8), torch.randint(0, 3, (16,))
    step_loss = train_step(x, y)
    step_loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"step {step}: loss {float(step_loss):.4f}")
