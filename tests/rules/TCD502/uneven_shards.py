# triggers TCD502 at line 17
# capture: doctor explain --nproc-per-node 2
import math

import torch
import torch.distributed as dist
from torch import nn

SAMPLES, BATCH = 29, 8  # 29 samples over 2 ranks: rank 0 gets 16 (8 + 8), rank 1 gets 13 (8 + 5)


class Scorer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(16, 1)

    def forward(self, x):
        return torch.sigmoid(self.proj(x)).squeeze(-1)


def main() -> None:
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    data = torch.randn(SAMPLES, 16)
    per_rank = BATCH * math.ceil(SAMPLES / (world * BATCH))  # whole batches per rank; the last rank gets the rest
    shard = data[rank * per_rank : (rank + 1) * per_rank]
    model = torch.compile(Scorer(), backend="eager", dynamic=False)
    total = torch.zeros(())
    for batch in shard.split(BATCH):
        total += model(batch).sum()
    dist.all_reduce(total)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
