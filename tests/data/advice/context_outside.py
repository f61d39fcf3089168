"""The fixes TCD126 and TCD125 print, applied to their cases (tests/rules/TCD126/cudnn_flags.py,
tests/rules/TCD125/contextvar.py): the `with torch.backends.cudnn.flags(...)` around the compiled call, and the
ContextVar read before the call and passed in. Run under TORCH_LOGS=graph_breaks, it logs no graph break."""

import contextvars

import torch

scale = contextvars.ContextVar("scale", default=2.0)


@torch.compile(backend="eager")
def step(x):
    x = x * 2
    return x.sin()


@torch.compile(backend="eager")
def scaled(x, s):
    return x * s


with torch.backends.cudnn.flags(enabled=False):
    step(torch.ones(3))
print(float(scaled(torch.ones(3), scale.get()).sum()))
