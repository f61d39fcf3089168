"""doctor fix case: the user's call passes a mask with padding, and the library branches on its values
(a mask without padding is dropped), which breaks the graph on every call. Leaving the mask out here changes the
results: doctor fix must refuse it."""

import torch
import toylib  # the installed library: tests/fix puts it in a site-packages folder on PYTHONPATH

torch.manual_seed(0)
model = toylib.PaddingAwareEncoder().eval()
compiled = torch.compile(model, backend="eager")
ids = torch.randint(0, 50, (2, 6))
padding = torch.tensor([[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1]])
with torch.no_grad():
    for _ in range(2):
        out = compiled(ids)
        print(f"{out.sum().item():.5f}")
