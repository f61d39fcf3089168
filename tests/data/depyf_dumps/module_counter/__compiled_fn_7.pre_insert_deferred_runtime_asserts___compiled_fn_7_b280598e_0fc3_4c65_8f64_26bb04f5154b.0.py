from __future__ import annotations
import torch
from torch import device
class GraphModule(torch.nn.Module):
    def forward(self, L_self_dict_buffers_mean_: "f32[8]", L_obs_: "f32[64, 8]", L_self_dict_buffers_var_: "f32[8]"):
        l_self_dict_buffers_mean_ = L_self_dict_buffers_mean_
        l_obs_ = L_obs_
        l_self_dict_buffers_var_ = L_self_dict_buffers_var_

        # File: /work/main/sample_models/module_counter.py:19 in forward, code: self.mean.lerp_(obs.mean(dim=0), momentum)
        mean: "f32[8]" = l_obs_.mean(dim = 0)
        lerp_: "f32[8]" = l_self_dict_buffers_mean_.lerp_(mean, 0.25);  mean = lerp_ = None

        # File: /work/main/sample_models/module_counter.py:20 in forward, code: self.var.lerp_(obs.var(dim=0), momentum)
        var: "f32[8]" = l_obs_.var(dim = 0)
        lerp__1: "f32[8]" = l_self_dict_buffers_var_.lerp_(var, 0.25);  var = lerp__1 = None

        # File: /work/main/sample_models/module_counter.py:21 in forward, code: return (obs - self.mean) / (self.var + 1e-5).sqrt()
        sub: "f32[64, 8]" = l_obs_ - l_self_dict_buffers_mean_;  l_obs_ = l_self_dict_buffers_mean_ = None
        add: "f32[8]" = l_self_dict_buffers_var_ + 1e-05;  l_self_dict_buffers_var_ = None
        sqrt: "f32[8]" = add.sqrt();  add = None
        truediv: "f32[64, 8]" = sub / sqrt;  sub = sqrt = None
        return (truediv,)
