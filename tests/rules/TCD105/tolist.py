# triggers TCD105 at line 7
import torch


def top_score_weight(x, logits):
    probs = logits.softmax(-1)
    scores = probs[0].tolist()
    return x * max(scores)


f = torch.compile(top_score_weight, backend="eager")
f(torch.ones(3), torch.tensor([[0.1, 0.7, 0.2]]))
