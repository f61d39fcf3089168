# triggers TCD404 at line 16
# capture: doctor explain --fresh-inductor-cache
# A feed-forward scorer compiled with inductor on the CPU: inductor says it leaves out its comprehensive padding
# (a performance hint, not an error).
import torch
import torch.nn as nn


class FeedForward(nn.Module):
    def __init__(self, width: int = 64) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.down(torch.relu(self.up(self.norm(x))))


model = torch.compile(FeedForward())
with torch.no_grad():
    for _ in range(3):
        out = model(torch.randn(8, 64))
print("scores:", tuple(out.shape))
