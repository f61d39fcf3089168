# triggers TCD122 at line 23
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        return self.fc(x).relu()


def main() -> None:
    # one process, world size 1; the DDP wrapper is compiled with the module (torch.compile(DDP(model)))
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    model = torch.compile(DistributedDataParallel(Net()), backend="eager")
    for _ in range(2):
        x = torch.randn(4, 8)
        model(x).sum().backward()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
