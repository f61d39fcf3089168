"""doctor fix case: a batch whose size changes recompiles the compiled function; `mark_dynamic` on the tensor the
caller passes fixes it, on the list another caller passes it would crash."""

import torch


@torch.compile(backend="eager")
def pool(values, weights):
    return (values * weights).sum(0)


weights = torch.ones(4)
for n in (2, 3, 4, 5):
    batch = torch.arange(n * 4, dtype=torch.float32).reshape(n, 4)
    torch._dynamo.mark_dynamic(batch, 0)
    out = pool(batch, weights)
    print(f"{n}: {out.sum().item():.1f}")
