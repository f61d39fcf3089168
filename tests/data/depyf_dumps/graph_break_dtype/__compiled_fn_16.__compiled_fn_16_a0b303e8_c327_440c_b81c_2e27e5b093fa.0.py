from __future__ import annotations
import torch
from torch import device
class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f64[3]"):
        l_x_ = L_x_

        # File: /work/main/tests/data/depyf_dumps/scripts/graph_break_dtype.py:9 in scale, code: y = x * 2
        y: "f64[3]" = l_x_ * 2;  l_x_ = None
        return (y,)
