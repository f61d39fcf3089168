"""A small transformer library (stands in for a third-party package)."""

import warnings

from torch import nn


class Encoder(nn.Module):
    def __init__(self, dim=16, heads=2):
        super().__init__()
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x, output_attentions=False):
        if output_attentions:
            warnings.warn("output_attentions=True returns averaged weights and is slower", stacklevel=2)
        out, weights = self.attn(x, x, x, need_weights=output_attentions)
        out = self.norm(x + out)
        return (out, weights) if output_attentions else (out, None)
