import torch


@torch.compile(backend="eager")
def normalize(x):
    return (x - x.mean()) / (x.std() + 1e-6)


torch.manual_seed(0)
a = normalize(torch.randn(4))
b = normalize(torch.randn(4))
reference = torch.linspace(0, 1, 4, dtype=torch.float64)
c = normalize(reference.to(torch.float32))
print(f"a {a.sum().item():.5f} b {b.max().item():.5f} c {c.max().item():.5f}")
