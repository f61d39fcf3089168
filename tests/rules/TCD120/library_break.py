# triggers TCD120 at line 12
import torch
from pydantic import BaseModel


class HeadConfig(BaseModel):
    scale: float = 1.0
    bias: float = 0.0


def head(x):
    cfg = HeadConfig(scale=2.0)
    return x * cfg.scale + cfg.bias


f = torch.compile(head, backend="eager")
f(torch.ones(3))
