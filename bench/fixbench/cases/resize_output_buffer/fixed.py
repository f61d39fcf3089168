import torch


@torch.compile(backend="eager")
def pairwise_distances(points):
    diff = points.unsqueeze(0) - points.unsqueeze(1)
    return diff.pow(2).sum(-1).sqrt()


torch.manual_seed(0)
totals = []
for _ in range(3):
    d = pairwise_distances(torch.randn(5, 3))
    totals.append(d.sum().item())
print("totals", [round(t, 5) for t in totals])
