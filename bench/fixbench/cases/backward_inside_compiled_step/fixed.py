import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.CrossEntropyLoss()


@torch.compile(backend="eager")
def forward_loss(x, y):
    return loss_fn(model(x), y)


def train_step(x, y):
    opt.zero_grad()
    loss = forward_loss(x, y)
    loss.backward()
    opt.step()
    return loss


x, y = torch.randn(16, 10), torch.randint(0, 2, (16,))
for _ in range(4):
    loss = train_step(x, y)
print(f"loss {loss.item():.5f}")
