# triggers TCD112 at line 14
import torch

STATS = []


@torch.compiler.disable
def record_stats(t):
    STATS.append(float(t.mean()))


def forward(x, w):
    h = torch.tanh(x @ w)
    record_stats(h)
    return h * 2


f = torch.compile(forward, backend="eager")
f(torch.ones(2, 4), torch.ones(4, 4))
