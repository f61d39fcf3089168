from __future__ import annotations
import torch
from torch import device
class GraphModule(torch.nn.Module):
    def forward(self, L_y_: "f32[3]"):
        l_y_ = L_y_

        # File: /work/main/tests/data/depyf_dumps/scripts/graph_break_dtype.py:11 in torch_dynamo_resume_in_scale_at_10, code: return y + 1
        add: "f32[3]" = l_y_ + 1;  l_y_ = None
        return (add,)
