import torch
from torch import nn

torch.manual_seed(0)
ranker = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1)).eval()


@torch.compile(backend="eager")
def rank_items(features, k=3):
    scores = ranker(features).squeeze(-1)
    ranked = sorted(range(len(scores)), key=lambda i: scores[i].item(), reverse=True)
    return ranked[:k], scores


with torch.no_grad():
    for _ in range(3):
        top, scores = rank_items(torch.randn(8, 4))
print("top", top)
print(f"score sum {scores.sum().item():.5f}")
