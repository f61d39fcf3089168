"""A stand-in for an installed model library (tests/fix copies it into a site-packages folder beside the project):
like transformers, it fills a left-out attention mask only when Dynamo is not tracing, so under torch.compile the
mask is still None where it is indexed, Dynamo raises, and the model's forward falls back to eager."""

import torch
from torch import nn


class TinyEncoder(nn.Module):
    def __init__(self, vocab=50, dim=8):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, input_ids, attention_mask=None):
        if attention_mask is None and not torch.compiler.is_compiling():
            attention_mask = torch.ones_like(input_ids)
        hidden = self.proj(self.emb(input_ids))
        weights = attention_mask[:, :, None].to(hidden.dtype)
        return (hidden * weights).sum(1) / weights.sum(1)


class PaddingAwareEncoder(nn.Module):
    """Checks the mask it is given: one with no padding is dropped (the unmasked path is faster), a branch on the
    mask's values that Dynamo cannot trace without breaking the graph."""

    def __init__(self, vocab=50, dim=8):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, input_ids, attention_mask=None):
        hidden = self.proj(self.emb(input_ids))
        if attention_mask is not None and bool((attention_mask == 1).all()):
            attention_mask = None
        if attention_mask is None:
            return hidden.mean(1)
        weights = attention_mask[:, :, None].to(hidden.dtype)
        return (hidden * weights).sum(1) / weights.sum(1)
