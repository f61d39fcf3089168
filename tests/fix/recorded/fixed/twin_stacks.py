"""doctor fix case: an encoder and a decoder of one class each loop over their blocks and skip a
block on a data-dependent test between them; torch records the break in the encoder only (it skips that code from
then on), so regional compilation must compile the blocks of both lists, or the decoder's would run uncompiled."""

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(8, 8)

    def forward(self, x):
        return torch.relu(self.linear(x)) + x


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(Block() for _ in range(3))

    def forward(self, x):
        for layer in self.layers:
            if x.abs().mean() > 100:  # a block is skipped on exploding activations
                continue
            x = layer(x)
        return x


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Stack()
        self.decoder = Stack()

    def forward(self, x):
        memory = self.encoder(x)
        return self.decoder(memory)


torch.manual_seed(0)
model = Net()
compiled = model
for block in compiled.encoder.layers:
    block.compile(backend="eager")
for block in compiled.decoder.layers:
    block.compile(backend="eager")
for step in range(3):
    print(f"step {step}: {compiled(torch.randn(2, 8)).sum().item():.4f}")
