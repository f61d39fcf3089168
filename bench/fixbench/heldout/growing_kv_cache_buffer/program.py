import torch
from torch import nn


class CachedAttention(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.register_buffer("keys", torch.zeros(0, dim))
        self.register_buffer("values", torch.zeros(0, dim))

    def forward(self, token):
        q, k, v = self.qkv(token).chunk(3, dim=-1)
        self.keys = torch.cat([self.keys, k])
        self.values = torch.cat([self.values, v])
        weights = torch.softmax(q @ self.keys.T, dim=-1)
        return weights @ self.values


torch.manual_seed(0)
attn = torch.compile(CachedAttention(), backend="eager")
with torch.no_grad():  # decoding
    outs = [attn(torch.randn(1, 8)) for _ in range(6)]
print(f"last {outs[-1].sum().item():.5f} all {sum(o.sum().item() for o in outs):.5f}")
