# triggers TCD501 at line 18
# capture: doctor explain --nproc-per-node 2
import torch
import torch.distributed as dist
from torch import nn


class Regressor(nn.Module):
    def __init__(self, is_main: bool) -> None:
        super().__init__()
        self.hidden = nn.Linear(16, 32)
        self.out = nn.Linear(32, 1)
        self.is_main = is_main

    def forward(self, x):
        h = torch.relu(self.hidden(x))
        if self.is_main:
            print("hidden mean", h.mean().item())
        return self.out(h)


def main() -> None:
    dist.init_process_group("gloo")
    model = torch.compile(Regressor(is_main=dist.get_rank() == 0), backend="eager")
    for _ in range(2):
        loss = model(torch.randn(8, 16)).pow(2).mean()
        dist.all_reduce(loss)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
