"""A small text-model library that warns when no attention mask is given."""

import logging

import torch
from torch import nn

logger = logging.getLogger("textlib")


class TextModel(nn.Module):
    def __init__(self, vocab=30, dim=12):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, input_ids, attention_mask=None):
        if attention_mask is None:
            logger.warning("No attention_mask was passed; every token is attended, padding included.")
            attention_mask = torch.ones_like(input_ids)
        h = self.proj(self.emb(input_ids))
        mask = attention_mask.unsqueeze(-1).to(h.dtype)
        return (h * mask).sum(1) / mask.sum(1)
