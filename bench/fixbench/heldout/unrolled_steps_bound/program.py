import torch


@torch.compile(backend="eager")
def diffuse(x, n_steps):
    for _ in range(n_steps):
        x = 0.5 * (x + torch.roll(x, 1, dims=-1))
    return x


torch.manual_seed(0)
signal = torch.randn(12)
results = [diffuse(signal, n).std().item() for n in (1, 2, 3, 4, 5)]
print("std", [round(r, 5) for r in results])
