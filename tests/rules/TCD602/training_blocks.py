# triggers TCD602 at line 24
# A training step (AOT autograd traces the forward and the backward): the fix is regional compilation, not no_grad.
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, width: int) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))


class Net(nn.Module):
    def __init__(self, width: int = 64, depth: int = 32) -> None:
        super().__init__()
        self.blocks = nn.ModuleList(Block(width) for _ in range(depth))
        self.head = nn.Linear(width, 10)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.head(x)


def main() -> None:
    torch.manual_seed(0)
    model = Net()
    step_model = torch.compile(model, backend="aot_eager")
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    data = torch.randn(16, 64)
    for _ in range(3):
        loss = step_model(data).square().mean()
        loss.backward()
        opt.step()
        opt.zero_grad()


if __name__ == "__main__":
    main()
