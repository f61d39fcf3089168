import torch
from torch import nn


class RunningContext(nn.Module):
    """Keeps every hidden state seen so far in a buffer allocated once at its longest, written in place."""

    def __init__(self, dim=8, max_len=16):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.register_buffer("slots", torch.zeros(2, max_len, dim))
        self.register_buffer("filled", torch.zeros((), dtype=torch.long))

    def forward(self, x):
        h = torch.tanh(self.proj(x))
        self.slots.index_copy_(1, self.filled.view(1), h[:, None])
        self.filled += 1
        return h + self.slots.sum(dim=1) / self.filled

    @property
    def context(self):
        return self.slots[:, : int(self.filled)]


torch.manual_seed(0)
model = RunningContext()
compiled = torch.compile(model, backend="eager")
x = torch.randn(2, 8)
with torch.no_grad():
    for _ in range(12):
        x = compiled(x)
print("state", [round(v, 5) for v in x[0, :4].tolist()], "context", tuple(model.context.shape))
