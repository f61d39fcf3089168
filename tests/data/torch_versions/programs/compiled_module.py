"""A compiled nn.Module (torch wraps a torch.nn container's forward) called with a new batch size: it recompiles."""

import torch
from torch import nn

model = torch.compile(nn.Sequential(nn.Linear(8, 8), nn.ReLU()), backend="eager")

for batch in (2, 3, 4):
    model(torch.randn(batch, 8))
