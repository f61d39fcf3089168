import torch
import torch.nn.functional as F

torch.manual_seed(0)
signal = torch.randn(2, 3, 1024)


@torch.compile(backend="eager")
def coarse_energy(x, levels):
    # a signal pyramid: halve the resolution `levels` times, then measure what is left
    for _ in range(levels):
        x = F.avg_pool1d(x, 2)
    return x.pow(2).mean()


energies = {}
for levels in [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]:
    energies[levels] = coarse_energy(signal, levels).item()
print("energies", [round(energies[n], 6) for n in sorted(energies)])
