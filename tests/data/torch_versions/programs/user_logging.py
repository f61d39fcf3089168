"""The user's own `logging` call inside the compiled step."""

import logging

import torch

logger = logging.getLogger("train")


@torch.compile(backend="eager")
def train_step(x):
    y = x.sin()
    logger.info("step done")
    return y.cos()


for _ in range(2):
    train_step(torch.randn(8))
