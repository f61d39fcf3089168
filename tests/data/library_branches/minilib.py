"""A small model library (stands in for a third-party package): it warns inside `forward` on an argument passed
and on a config attribute left unset."""

import warnings
from dataclasses import dataclass

from torch import nn


@dataclass
class Config:
    pad_token_id: int | None = None


class Encoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.emb = nn.Embedding(10, 4)
        self.proj = nn.Linear(4, 4)

    def forward(self, ids, return_scores=False):
        if return_scores:
            warnings.warn("return_scores=True is slower", stacklevel=2)
        if self.config.pad_token_id is None:
            warnings.warn("config.pad_token_id is not set", stacklevel=2)
            pad = -1
        else:
            pad = self.config.pad_token_id
        hidden = self.proj(self.emb(ids)).masked_fill((ids == pad).unsqueeze(-1), 0.0)
        return (hidden, hidden.softmax(-1)) if return_scores else (hidden, None)
