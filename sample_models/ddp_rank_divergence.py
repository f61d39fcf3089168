# DDP training on 2 ranks (gloo, CPU) where the ranks compile differently, in two classic ways:
#   - rank 0 logs from inside the compiled forward (`if self.is_main: print(...)`), so only rank 0 graph-breaks;
#   - the data does not divide evenly, so rank 1's last batch is shorter and only rank 1 recompiles.
# 1 MB gradient buckets make DDP's optimizer split the compiled graph at a bucket boundary (not a graph break).
# Run it under torchrun through the doctor (about 10 s on 2 CPU cores):
#   doctor explain sample_models/ddp_rank_divergence.py --nproc-per-node 2
# Expected findings (torch 2.13, CPU, backend aot_eager):
#   - rank_divergence TCD501: the print at line 33 breaks the graph on rank 0 only (GB0059)
#   - rank_divergence TCD502: TinyNet.forward (line 30) recompiles on rank 1 only (x.shape[0]: 8 -> 5)
#   - rank_divergence TCD504: the ranks compiled different frames (compile ids 0/0 1/0 vs 0/0 0/1)
#   - graph_break TCD101 on rank 0, recompile TCD301 on rank 1 (the per-rank findings the divergences point to)
#   - ddp_split TCD506 (info), both ranks: DDP's optimizer split TinyNet.forward's graph into 2 subgraphs
import math

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel

SAMPLES, BATCH = 29, 8  # sharded in whole batches: rank 0 gets 16 samples (8 + 8), rank 1 the other 13 (8 + 5)


class TinyNet(nn.Module):
    def __init__(self, is_main: bool) -> None:
        super().__init__()
        self.is_main = is_main
        self.encoder = nn.Sequential(nn.Linear(32, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU())
        self.head = nn.Linear(512, 4)

    def forward(self, x):
        h = self.encoder(x)
        if self.is_main:
            print("rank 0: activations ready")  # rank-0-only logging: a graph break on rank 0 alone
        return self.head(h)


def train(rank: int, world: int) -> None:
    torch.manual_seed(0)
    net = torch.compile(TinyNet(is_main=rank == 0), backend="aot_eager", dynamic=False)
    model = DistributedDataParallel(net, bucket_cap_mb=1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    data = torch.randn(SAMPLES, 32)
    shard = BATCH * math.ceil(SAMPLES / (world * BATCH))
    mine = data[rank * shard : (rank + 1) * shard]
    for start in range(0, len(mine), BATCH):
        batch = mine[start : start + BATCH]
        loss = model(batch).square().mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()


def main() -> None:
    dist.init_process_group("gloo")
    # DDP is freed when train() returns, while the process group is still registered: if DDP's reducer dropped
    # the last reference to a gloo group instead, its destructor would join gloo's threads with the GIL held and
    # can deadlock against one of them freeing an all-reduce (torch 2.13, CPU).
    train(dist.get_rank(), dist.get_world_size())
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
