import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
net = nn.Linear(6, 6)
opt = torch.optim.SGD(net.parameters(), lr=0.05)


@torch.compile(backend="eager")
def train_step(x, y, beta):
    # softplus(z, beta) = log(1 + exp(beta z)) / beta, written with beta as a tensor (graph data, not a constant)
    z = net(x)
    loss = F.mse_loss(F.softplus(z * beta) / beta, y)
    loss.backward()
    return loss


x, y = torch.randn(32, 6), torch.rand(32, 6)
losses = []
for step in range(12):
    beta = 1.0 + 0.5 * step
    opt.zero_grad()
    losses.append(train_step(x, y, torch.tensor(beta)).item())
    opt.step()
print("losses", [round(v, 5) for v in losses[::3]])
