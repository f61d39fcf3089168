"""`model = torch.compile(model); model.generate(...)`: generate() calls the original module, so
nothing is compiled (transformers' generate() does the same). Captured as README.md says."""

import torch


class Generator(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        return torch.relu(self.lin(x))

    def generate(self, x, steps=3):
        for _ in range(steps):
            x = self(x)
        return x


model = Generator()
model = torch.compile(model, backend="eager")
model.generate(torch.ones(2, 4))
