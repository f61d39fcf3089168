import random

import torch
from collate import pad_batch
from torch import nn


class Pooler(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(40, 8)
        self.out = nn.Linear(8, 2)

    def forward(self, ids, mask):
        h = self.emb(ids) * mask.unsqueeze(-1)
        return self.out(h.sum(1) / mask.sum(1, keepdim=True))


random.seed(0)
torch.manual_seed(0)
model = torch.compile(Pooler().eval(), backend="eager")
totals = []
with torch.no_grad():
    for batch_len in (5, 7, 6, 9, 11, 8):
        seqs = [[random.randint(1, 39) for _ in range(random.randint(2, batch_len))] for _ in range(4)]
        ids, mask = pad_batch(seqs)
        totals.append(model(ids, mask).sum().item())
print("totals", [round(t, 4) for t in totals])
