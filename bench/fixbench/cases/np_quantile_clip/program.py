import numpy as np
import torch


@torch.compile(backend="eager")
def robust_clip(x):
    upper = np.quantile(x.detach().numpy(), 0.9)
    return torch.clamp(x, max=float(upper))


torch.manual_seed(0)
clipped = [robust_clip(torch.randn(50)) for _ in range(3)]
print("sums", [round(c.sum().item(), 4) for c in clipped])
