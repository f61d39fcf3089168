import torch
from torch import nn

# ten distinct activations: ten graphs are inherent, so the limit is raised above them
torch._dynamo.config.recompile_limit = 16
torch.manual_seed(0)
layer = nn.Linear(8, 8)

ACTIVATIONS = [
    torch.relu, torch.tanh, torch.sigmoid, nn.functional.gelu, nn.functional.silu, nn.functional.elu,
    nn.functional.softplus, nn.functional.mish, nn.functional.hardswish, nn.functional.selu,
]  # fmt: skip


@torch.compile(backend="eager")
def probe(x, act):
    return act(layer(x)).pow(2).mean()


x = torch.randn(16, 8)
with torch.no_grad():
    energies = [probe(x, act).item() for act in ACTIVATIONS]
print("energies", [round(e, 5) for e in energies])
