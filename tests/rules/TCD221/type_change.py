# triggers TCD221 at line 5
import torch


@torch.compile(backend="eager")
def scale(x, factor):
    return x * factor


scale(torch.ones(3), torch.tensor(2.0))
scale(torch.ones(3), 2.0)
