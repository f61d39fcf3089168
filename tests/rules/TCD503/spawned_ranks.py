# triggers TCD503 at line 19
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn


class Classifier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Linear(16, 4)
        self.log_activations = False  # switched on for the main rank, to watch training

    def forward(self, x):
        logits = self.body(x)
        if self.log_activations:
            print("logit norm", logits.norm())
        return logits


def worker(rank: int, world_size: int) -> None:
    # the ranks are started by the program itself (as the DDP tutorial does), not by torchrun
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    model = Classifier()
    model.log_activations = rank == 0
    compiled = torch.compile(model, backend="eager", fullgraph=True)
    x = torch.randn(8, 16)
    try:
        logits = compiled(x)
    except torch._dynamo.exc.Unsupported:
        logits = model(x)  # this rank runs the step eagerly
    dist.all_reduce(logits)
    dist.destroy_process_group()


if __name__ == "__main__":
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29541")
    mp.spawn(worker, args=(2,), nprocs=2)
