import torch
from torch import nn

torch.manual_seed(0)
net = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6 * 6, 3))
for p in net.parameters():
    p.requires_grad_(False)
model = torch.compile(net, backend="eager")

images = torch.randn(3, 1, 6, 6)
scores = model(images)
preds = scores.argmax(-1)

probe = images[:1].clone().requires_grad_(True)
score = model(probe)[0, preds[0]]
score.backward()
saliency = probe.grad.abs().amax(dim=1)
print("preds", preds.tolist())
print(f"saliency {saliency.sum().item():.5f}")
