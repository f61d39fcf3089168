# triggers TCD407 at line 21
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
# generate() calls the original module, not the compiled one
model = torch.compile(model, backend="eager")
model.generate(torch.ones(2, 4))
