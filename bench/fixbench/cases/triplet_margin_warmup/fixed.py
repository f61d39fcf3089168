import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
embed = nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 8))
opt = torch.optim.Adam(embed.parameters(), lr=0.01)


@torch.compile(backend="eager")
def triplet_step(anchor, positive, negative, margin):
    # triplet_margin_loss written out, so the margin can be a tensor (graph data, not a constant)
    a, p, n = embed(anchor), embed(positive), embed(negative)
    loss = torch.clamp_min(margin + F.pairwise_distance(a, p) - F.pairwise_distance(a, n), 0).mean()
    loss.backward()
    return loss


anchor = torch.randn(48, 10)
positive = anchor + 0.3 * torch.randn(48, 10)
negative = torch.randn(48, 10)
losses = []
for epoch in range(12):
    margin = 0.2 + 0.8 * min(1.0, epoch / 8)  # the margin grows over the first epochs, then stays
    opt.zero_grad()
    losses.append(triplet_step(anchor, positive, negative, torch.tensor(margin)).item())
    opt.step()
print("losses", [round(v, 5) for v in losses[::2]])
