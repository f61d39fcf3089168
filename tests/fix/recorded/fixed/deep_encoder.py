"""doctor fix case: an encoder of identical blocks compiled whole; compiling each block instead (regional
compilation) compiles one block's code once."""

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(32)
        self.up = nn.Linear(32, 64)
        self.down = nn.Linear(64, 32)

    def forward(self, x):
        h = self.norm(x)
        h = self.up(h)
        h = torch.nn.functional.gelu(h)
        return x + self.down(h)


class Encoder(nn.Module):
    def __init__(self, depth: int = 48) -> None:  # deep enough that compiling it whole takes over a second
        super().__init__()
        self.layers = nn.ModuleList(Block() for _ in range(depth))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


torch.manual_seed(0)
model = Encoder()
for block in model.layers:
    block.compile(backend="aot_eager")
x = torch.randn(8, 32)
with torch.no_grad():
    for _ in range(3):
        out = model(x)
print(f"checksum {out.sum().item():.4f}")
