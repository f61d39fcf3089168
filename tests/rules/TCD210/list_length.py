# triggers TCD210 at line 5 (variable: feats)
import torch


def fuse(feats):
    return torch.stack(feats).sum(0)


f = torch.compile(fuse, backend="eager")
for n_views in (2, 3):
    feats = [torch.ones(4)] * n_views
    fused = f(feats)
