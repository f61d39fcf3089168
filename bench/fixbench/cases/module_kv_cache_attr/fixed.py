import torch
from torch import nn


class CachedAttention(nn.Module):
    def __init__(self, dim=16, max_len=16):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.register_buffer("k_buf", torch.zeros(max_len, dim))
        self.register_buffer("v_buf", torch.zeros(max_len, dim))
        self.register_buffer("pos", torch.zeros((), dtype=torch.long))

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        self.k_buf.index_copy_(0, self.pos.view(1), k)
        self.v_buf.index_copy_(0, self.pos.view(1), v)
        self.pos += 1
        scores = q @ self.k_buf.T / 4.0
        filled = torch.arange(self.k_buf.shape[0]) < self.pos
        weights = torch.softmax(scores.masked_fill(~filled, float("-inf")), dim=-1)
        return weights @ self.v_buf

    @property
    def k_cache(self):
        return self.k_buf[: int(self.pos)]


torch.manual_seed(0)
attn = CachedAttention()
step = torch.compile(attn, backend="eager")
tok = torch.randn(1, 16)
with torch.no_grad():
    for _ in range(12):
        tok = step(tok)
print("token", [round(v, 5) for v in tok[0, :4].tolist()], "cache", tuple(attn.k_cache.shape))
