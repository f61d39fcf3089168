# triggers TCD125 at line 10
import contextvars

import torch

scale = contextvars.ContextVar("scale", default=2.0)


def scaled(x):
    return x * scale.get()


torch.compile(scaled, backend="eager")(torch.ones(3))
