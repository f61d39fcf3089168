import torch
import torch.nn.functional as F
from torch import nn


class BoxRegressionLoss(nn.Module):
    """The box head's regression loss, weighted per box (Dynamic R-CNN adapts beta as training goes)."""

    def forward(self, deltas, targets, weights, beta):
        per_box = F.smooth_l1_loss(deltas, targets, beta=beta, reduction="none").sum(dim=1)
        return (per_box * weights).sum() / weights.sum()


torch.manual_seed(0)
head = nn.Linear(16, 4)
opt = torch.optim.SGD(head.parameters(), lr=0.1)
box_loss = torch.compile(BoxRegressionLoss(), backend="eager")
features, targets = torch.randn(40, 16), torch.randn(40, 4)
weights = torch.rand(40)
beta, losses = 1.0, []
for it in range(16):
    if it % 2 == 0:  # every two iterations beta follows the regression error down
        beta = max(0.1, beta * 0.75)
    opt.zero_grad()
    loss = box_loss(head(features), targets, weights, beta=beta)
    loss.backward()
    opt.step()
    losses.append(loss.item())
print("losses", [round(v, 5) for v in losses[::4]], "beta", round(beta, 4))
