# triggers TCD299 at line 5 (variable: padding_mask)
import torch


def mean_pool(hidden, padding_mask=None):
    if padding_mask is None:
        return hidden.mean(dim=1)
    weights = padding_mask.unsqueeze(-1).float()
    return (hidden * weights).sum(dim=1) / weights.sum(dim=1)


pool = torch.compile(mean_pool, backend="eager")
full_batch = torch.randn(4, 10, 32)  # every sequence full length: no mask
pool(full_batch)
padded_batch = torch.randn(4, 10, 32)
lengths = torch.tensor([10, 7, 5, 9])
pool(padded_batch, torch.arange(10) < lengths[:, None])
