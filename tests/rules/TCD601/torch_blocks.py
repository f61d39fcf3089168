# triggers TCD601 at line 12
"""An encoder of 16 identical blocks of torch's own (`nn.TransformerEncoderLayer`, whose code leaves no `# File:`
lines in the graph) compiled whole: the module list's children among the graph's inputs tell the repeated block.
Regional compilation, `for block in model[1].layers: block.compile()`, measured on this program (aot_eager, 2
shared cores): the first three calls 10.4 s whole, 2.2 s regional."""

import torch
from torch import nn

layer = nn.TransformerEncoderLayer(64, 4, 128, batch_first=True)
model = nn.Sequential(nn.Linear(32, 64), nn.TransformerEncoder(layer, 16, enable_nested_tensor=False)).eval()
compiled = torch.compile(model, backend="aot_eager")
with torch.no_grad():
    compiled(torch.randn(2, 16, 32))
