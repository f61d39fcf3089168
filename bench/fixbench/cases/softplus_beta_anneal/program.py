import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
net = nn.Linear(6, 6)
opt = torch.optim.SGD(net.parameters(), lr=0.05)


@torch.compile(backend="eager")
def train_step(x, y, beta):
    # a smooth ReLU whose sharpness is annealed: softplus(beta) tends to ReLU as beta grows
    loss = F.mse_loss(F.softplus(net(x), beta=beta), y)
    loss.backward()
    return loss


x, y = torch.randn(32, 6), torch.rand(32, 6)
losses = []
for step in range(12):
    beta = 1.0 + 0.5 * step
    opt.zero_grad()
    losses.append(train_step(x, y, beta).item())
    opt.step()
print("losses", [round(v, 5) for v in losses[::3]])
