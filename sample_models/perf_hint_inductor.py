# Two-tower retrieval scorer compiled with the default inductor backend: returns the top-k items per user.
# Expected findings (torch 2.13, CPU):
#   - perf hint: 'Skip comprehensive padding on CPU' (inductor, cold cache)
#   - perf hint: 'Using FallbackKernel: torch.ops.aten.topk.default' for scores.topk at perf_hint_inductor.py:18 in forward (inductor, cold cache; a warm FX-graph cache prints no hints)
import torch
import torch.nn as nn


class TwoTowerScorer(nn.Module):
    def __init__(self, users=100, items=500, dim=16, k=5):
        super().__init__()
        self.user_emb = nn.Embedding(users, dim)
        self.item_emb = nn.Embedding(items, dim)
        self.k = k

    def forward(self, user_ids):
        scores = self.user_emb(user_ids) @ self.item_emb.weight.T
        top_scores, top_items = scores.topk(self.k, dim=-1)
        return top_scores.sigmoid(), top_items


def main():
    torch.manual_seed(0)
    model = TwoTowerScorer().eval()
    cmodel = torch.compile(model)
    with torch.no_grad():
        user_ids = torch.arange(32)
        scores, items = cmodel(user_ids)
        ref_scores, ref_items = model(user_ids)
    print("top items for user 0:", items[0].tolist())
    print("matches eager:", torch.equal(items, ref_items), torch.allclose(scores, ref_scores))


if __name__ == "__main__":
    main()
