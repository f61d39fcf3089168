import torch
from torch import nn

activation_stats = []


@torch.compiler.disable
def record_stats(name, t):
    activation_stats.append((name, t.detach().abs().mean().item()))


class Tower(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(8, 8) for _ in range(3)])

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = torch.relu(layer(x))
            if not torch.compiler.is_compiling():  # the stats are read eagerly only
                record_stats(f"layer{i}", x)
        return x.sum(dim=-1)


torch.manual_seed(0)
model = torch.compile(Tower(), backend="eager")
outs = [model(torch.randn(4, 8)) for _ in range(3)]
print("out", [round(v, 4) for v in torch.stack(outs).sum(dim=0).tolist()])
