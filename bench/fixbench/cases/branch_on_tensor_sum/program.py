import torch


@torch.compile(backend="eager")
def fn(x):
    y = x.sum()
    if y > 0:
        return x + y
    return x - y


torch.manual_seed(0)
acc = torch.zeros(3, 3)
for _ in range(4):
    acc = acc + fn(torch.randn(3, 3))
print(f"acc {acc.sum().item():.5f} {acc.max().item():.5f}")
