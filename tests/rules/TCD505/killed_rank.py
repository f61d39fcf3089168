# triggers TCD505 at line 17
# capture: doctor explain --nproc-per-node 2
import os
import signal
import time

import torch
import torch.distributed as dist
from torch import nn


class Encoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 32))

    def forward(self, x):
        return self.layers(x)


def main() -> None:
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    model = torch.compile(Encoder(), backend="eager")
    for _ in range(3):
        loss = model(torch.randn(16, 32)).pow(2).mean()
        dist.all_reduce(loss)
    dist.destroy_process_group()
    if rank == 1:
        time.sleep(2)  # rank 1 is still writing its checkpoint shard after rank 0 has finished...
        os.kill(os.getpid(), signal.SIGKILL)  # ...when the kernel's out-of-memory killer stops it


if __name__ == "__main__":
    main()
