import torch


@torch.compile(backend="eager")
def robust_clip(x):
    upper = torch.quantile(x.detach(), 0.9)
    return torch.minimum(x, upper)


torch.manual_seed(0)
clipped = [robust_clip(torch.randn(50)) for _ in range(3)]
print("sums", [round(c.sum().item(), 4) for c in clipped])
