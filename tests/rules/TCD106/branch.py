# triggers TCD106 at line 7
import torch


def clip_update(update, max_norm=1.0):
    norm = update.norm()
    if norm > max_norm:
        update = update * (max_norm / norm)
    return update


clip = torch.compile(clip_update, backend="eager")
clip(torch.full((4,), 3.0))
