# triggers TCD108 at line 7
import torch


def masked_l1(pred, target):
    valid = target >= 0
    diff = pred[valid] - target[valid]
    return diff.abs().mean()


loss_fn = torch.compile(masked_l1, backend="eager")
loss_fn(torch.rand(6), torch.tensor([1.0, -1.0, 2.0, 3.0, -1.0, 0.0]))
