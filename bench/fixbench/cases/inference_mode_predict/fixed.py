import torch
from torch import nn


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 16)
        self.head = nn.Linear(16, 1)

    def forward(self, ids):
        return self.head(self.emb(ids).mean(1)).squeeze(-1)


torch.manual_seed(0)
scorer = Scorer()
model = torch.compile(scorer, backend="eager")
opt = torch.optim.Adam(scorer.parameters(), lr=0.01)
ids, target = torch.randint(0, 50, (8, 6)), torch.randn(8)
for _ in range(3):
    opt.zero_grad()
    loss = ((model(ids) - target) ** 2).mean()
    loss.backward()
    opt.step()
with torch.inference_mode():
    pred = scorer(ids[:2])  # one prediction: the eager module
print(f"loss {loss.item():.5f} pred {[round(v, 4) for v in pred.tolist()]}")
