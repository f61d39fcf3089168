# triggers TCD199 at line 8
import torch


def top_scores(logits, out):
    # one output buffer, reused from batch to batch and sized to each batch here
    scores = logits.softmax(-1).amax(-1)
    out.resize_(scores.shape)
    return out.copy_(scores)


score = torch.compile(top_scores, backend="eager")
buffer = torch.empty(16)
for batch in (torch.randn(16, 4), torch.randn(16, 4)):
    score(batch, buffer)
