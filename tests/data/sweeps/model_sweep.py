import torch
from torch import nn

torch.manual_seed(0)
x = torch.randn(4, 3)
for width in (2, 3, 4, 5, 6, 7, 8, 9, 10, 11):
    model = torch.compile(nn.Sequential(nn.Linear(3, width), nn.Linear(width, 1)), backend="eager")
    with torch.no_grad():
        print(width, round(model(x).sum().item(), 4))
