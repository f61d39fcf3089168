"""A small generation library whose model warns about a config attribute it needs."""

import warnings
from dataclasses import dataclass

from torch import nn


@dataclass
class Config:
    vocab_size: int = 20
    dim: int = 8
    pad_token_id: int | None = None


class LMHeadModel(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.emb = nn.Embedding(config.vocab_size, config.dim)
        self.head = nn.Linear(config.dim, config.vocab_size)

    def forward(self, input_ids):
        if self.config.pad_token_id is None:
            warnings.warn("config.pad_token_id is not set; padded positions are not ignored", stacklevel=2)
            pad = -1
        else:
            pad = self.config.pad_token_id
        logits = self.head(self.emb(input_ids))
        return logits.masked_fill((input_ids == pad).unsqueeze(-1), 0.0)
