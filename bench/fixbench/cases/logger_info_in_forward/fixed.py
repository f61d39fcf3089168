import logging

import torch
from torch import nn

logger = logging.getLogger("trainer.model")
logging.basicConfig(level=logging.WARNING)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(20, 40), nn.GELU(), nn.Linear(40, 5))

    def forward(self, x):
        if not torch.compiler.is_compiling():
            logger.info("forward on batch of %d", x.shape[0])
        logits = self.body(x)
        if not torch.compiler.is_compiling():
            logger.debug("logits computed")
        return logits.log_softmax(-1)


torch.manual_seed(0)
model = torch.compile(Classifier(), backend="eager")
x = torch.randn(8, 20)
for _ in range(3):
    out = model(x)
print(f"mean {out.mean().item():.5f} max {out.max().item():.5f}")
