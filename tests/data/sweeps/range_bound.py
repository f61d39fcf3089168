import torch


def velocity(x):
    return torch.tanh(x) - 0.5 * x


@torch.compile(backend="eager")
def integrate(x, dt, n_steps):
    for _ in range(n_steps):
        x = x + dt * velocity(x)
    return x


torch.manual_seed(0)
x0 = torch.randn(16, 4)
finals = []
for n_steps in (4, 6, 8, 10, 12):
    finals.append(integrate(x0, 1.0 / n_steps, n_steps).norm().item())
print("final norms", [round(v, 5) for v in finals])
