# triggers TCD217 at line 7
import torch
import torch.nn.functional as F


def positive_loss(scores, labels):
    positives = scores[labels == 1]  # as many rows as this batch has positive labels
    return F.softplus(-positives).mean()


loss_fn = torch.compile(positive_loss, backend="eager")
torch.manual_seed(0)
for _ in range(3):
    loss_fn(torch.randn(16), torch.randint(0, 2, (16,)))
