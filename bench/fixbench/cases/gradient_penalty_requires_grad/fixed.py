import torch
from torch import nn

torch.manual_seed(0)
critic = nn.Sequential(nn.Linear(6, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
compiled_critic = torch.compile(critic, backend="eager")


def gradient_penalty(real, fake, alpha):
    interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    score = compiled_critic(interp).sum()
    (grad,) = torch.autograd.grad(score, interp, create_graph=True)
    return ((grad.norm(2, dim=1) - 1) ** 2).mean()


real, fake = torch.randn(8, 6), torch.randn(8, 6)
for _ in range(3):
    alpha = torch.rand(8, 1)
    gp = gradient_penalty(real, fake, alpha)
print(f"gp {gp.item():.5f}")
