# triggers TCD405 at line 13
"""`capture_scalar_outputs` on `torch.arange` over bounds read from a tensor: Dynamo fails with an internal error
(InternalTorchDynamoError: PendingUnbackedSymbolNotFound), not a graph break under fullgraph=True; the crash is
placed at the traced line torch names (`from user code:`), not at the call of the compiled function."""

import torch

torch._dynamo.config.capture_scalar_outputs = True


def pool(x, bounds):
    start, end = bounds[0], bounds[1]
    return x[torch.arange(start, end)].sum()


print(float(torch.compile(pool, backend="eager")(torch.arange(10.0), torch.tensor([2, 7]))))
