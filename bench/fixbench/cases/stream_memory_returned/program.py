import torch
from torch import nn

torch.manual_seed(0)
embed = nn.Linear(4, 6)


@torch.compile(backend="eager")
def step(frame, memory):
    # one streaming step: the new frame attends to the memory of past frames, then joins it (batch, time, dim)
    h = embed(frame)
    scores = torch.softmax((memory @ h[:, :, None]).squeeze(-1), dim=1)
    context = (scores[:, :, None] * memory).sum(dim=1)
    return h + context, torch.cat([memory, h[:, None]], dim=1)


frames = torch.randn(10, 3, 4)
memory = torch.zeros(3, 1, 6)
with torch.no_grad():
    for frame in frames:
        out, memory = step(frame, memory)
print("out", [round(v, 5) for v in out[0, :4].tolist()], "memory", tuple(memory.shape))
