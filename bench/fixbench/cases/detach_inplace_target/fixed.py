import torch
from torch import nn

torch.manual_seed(0)
online = nn.Linear(8, 8)
target_net = nn.Linear(8, 8)


@torch.compile(backend="eager")
def byol_loss(pred, target):
    target = target.detach()
    return 2 - 2 * nn.functional.cosine_similarity(pred, target, dim=-1).mean()


opt = torch.optim.SGD(online.parameters(), lr=0.1)
x = torch.randn(10, 8)
for _ in range(3):
    opt.zero_grad()
    loss = byol_loss(online(x), target_net(x))
    loss.backward()
    opt.step()
print(f"loss {loss.item():.5f} target grad {target_net.weight.grad}")
