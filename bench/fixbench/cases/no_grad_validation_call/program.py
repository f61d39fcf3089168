import torch
from torch import nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
model = torch.compile(net, backend="eager")
opt = torch.optim.SGD(net.parameters(), lr=0.1)
x, y = torch.randn(32, 8), torch.randn(32, 1)
val_x, val_y = torch.randn(16, 8), torch.randn(16, 1)

for epoch in range(3):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    with torch.no_grad():
        val_loss = nn.functional.mse_loss(model(val_x), val_y)
    print(f"epoch {epoch} train {loss.item():.5f} val {val_loss.item():.5f}")
