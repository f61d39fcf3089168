"""A served model whose batch dimension the program marks dynamic, with single-request batches among the
others: torch bounds the dynamic size to a range and compiles size 1 (and what falls outside) again. Marking it
unbacked, as torch's hint says, with the lengths tied to it, leaves one entry."""

import torch
from torch import nn


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 4)

    def forward(self, tokens, lengths):
        mask = torch.arange(tokens.shape[1])[None, :] < lengths[:, None]
        return (self.proj(tokens) * mask[..., None]).sum(1)


model = torch.compile(Scorer(), backend="eager")
with torch.inference_mode():
    for batch in (4, 8, 1, 16):
        tokens, lengths = torch.randn(batch, 6, 8), torch.randint(1, 7, (batch,))
        torch._dynamo.mark_dynamic(tokens, 0)
        torch._dynamo.mark_dynamic(lengths, 0)
        torch._dynamo.decorators.mark_unbacked(tokens, 0)
        torch._dynamo.decorators.mark_unbacked(lengths, 0)
        scores = model(tokens, lengths)
        print(batch, scores.shape)
