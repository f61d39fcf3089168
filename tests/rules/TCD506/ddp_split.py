# triggers TCD506 at line 15
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.first = nn.Linear(32, 512)
        self.second = nn.Linear(512, 512)  # 1 MB of weights: fills a 1 MB gradient bucket on its own
        self.head = nn.Linear(512, 4)

    def forward(self, x):
        return self.head(torch.relu(self.second(torch.relu(self.first(x)))))


def train() -> None:
    model = DistributedDataParallel(torch.compile(Net(), backend="eager"), bucket_cap_mb=1)
    for _ in range(2):
        model(torch.randn(8, 32)).sum().backward()


def main() -> None:
    # one process, world size 1: DDP's optimizer splits compiled graphs whatever the world size
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    train()  # DDP is freed while the group is still registered (see sample_models/ddp_rank_divergence.py)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
