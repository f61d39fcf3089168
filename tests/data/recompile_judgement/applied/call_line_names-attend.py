"""What the user holds at the call line is not the compiled function's parameter: `score` gets
`torch.stack(values)` for `values` (a list at the call line), and `attend` gets `k` for `key`; both recompile
when the length changes (episodes of different lengths)."""

import torch


@torch.compile(backend="eager")
def score(values, scale):
    return (values * scale).sum()


@torch.compile(backend="eager")
def attend(query, key):
    return (query @ key.T).softmax(-1)


q, w = torch.randn(2, 4), torch.tensor(0.5)
for length in (16, 20):
    values = [torch.randn(()) for _ in range(length)]
    k = torch.randn(length, 4)
    print(score(torch.stack(values), w).item())
    torch._dynamo.mark_dynamic(k, 0)
    print(attend(q, k).shape)
