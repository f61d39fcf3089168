"""`torch.arange` on bounds read from a tensor: a graph break by default; with `capture_scalar_outputs` (and
`capture_dynamic_output_shape_ops`) set, torch 2.13's Dynamo fails on it with PendingUnbackedSymbolNotFound.
The doctor's fix texts for TCD104/105/108 say a config switch can crash a program: this is that program.
Run: python arange_bounds.py [capture]"""

import sys

import torch

if sys.argv[1:] == ["capture"]:
    torch._dynamo.config.capture_scalar_outputs = True
    torch._dynamo.config.capture_dynamic_output_shape_ops = True


def pool(x, bounds):
    start, end = bounds[0], bounds[1]
    return x[torch.arange(start, end)].sum()


compiled = torch.compile(pool, backend="eager")
print(float(compiled(torch.arange(10.0), torch.tensor([2, 7]))))
