"""TORCHDYNAMO_DISABLE=1 set before torch is imported: torch.compile returns the function unchanged,
so nothing is compiled. Captured as README.md says."""

import os

os.environ["TORCHDYNAMO_DISABLE"] = "1"

import torch  # noqa: E402


def step(x):
    return torch.relu(x) * 2


step = torch.compile(step, backend="eager")
step(torch.ones(3))
