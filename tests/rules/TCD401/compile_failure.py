# triggers TCD401 at line 7
import torch


def focal_loss(logits, target):
    p = logits.sigmoid()
    print("mean p", p.mean())
    return -(target * (1 - p) ** 2 * p.log()).mean()


f = torch.compile(focal_loss, backend="eager", fullgraph=True)
try:
    f(torch.zeros(4), torch.ones(4))
except Exception as exc:
    print("compile failed:", type(exc).__name__)
