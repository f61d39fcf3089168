# triggers TCD103 at line 12
import logging

import torch

logger = logging.getLogger("trainer")


def forward_loss(model, x, y):
    logits = model(x)
    loss = torch.nn.functional.cross_entropy(logits, y)
    logger.info("batch loss %s", loss)
    return loss


model = torch.nn.Linear(8, 3)
step = torch.compile(forward_loss, backend="eager")
step(model, torch.ones(4, 8), torch.tensor([0, 1, 2, 0]))
