# triggers TCD204 at line 11 (variable: self.step)
import torch


class Warmup(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)
        self.step = 0

    def forward(self, x):
        self.step += 1
        return self.fc(x) * min(1.0, self.step / 100)


model = torch.compile(Warmup(), backend="eager")
for _ in range(3):
    model(torch.ones(2, 4))
