"""doctor fix case: requests of several batch sizes with the batch dimension already marked dynamic; torch bounds
a dynamic size to 2 and more, so a single request (batch 1) compiles again. torch's own hint, `mark_unbacked`, on
the tokens and on the lengths torch ties to them, removes the recompile."""

import torch
from torch import nn


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 8)
        self.out = nn.Linear(8, 3)

    def forward(self, tokens, lengths):
        mask = torch.arange(tokens.shape[1])[None, :] < lengths[:, None]
        pooled = (self.emb(tokens) * mask[..., None]).sum(1) / lengths[:, None]
        return self.out(pooled)


torch.manual_seed(0)
model = Classifier().eval()
compiled = torch.compile(model, backend="eager")
with torch.no_grad():
    for batch in (4, 8, 1, 3):
        tokens = torch.randint(0, 100, (batch, 6))
        lengths = torch.full((batch,), 6.0)
        torch._dynamo.mark_dynamic(tokens, 0)
        torch._dynamo.mark_dynamic(lengths, 0)
        torch._dynamo.decorators.mark_unbacked(tokens, 0)
        torch._dynamo.decorators.mark_unbacked(lengths, 0)
        logits = compiled(tokens, lengths)
        print(f"batch {batch}: {logits.sum().item():.4f}")
