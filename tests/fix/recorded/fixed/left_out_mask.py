"""doctor fix case: the user's call leaves out `attention_mask`; the library fills it only when Dynamo is not
tracing, so the compiled forward raises on None and runs eagerly. Passing the all-ones mask the library would have
made, at the user's call, compiles it whole."""

import torch
import toylib  # the installed library: tests/fix puts it in a site-packages folder on PYTHONPATH

torch.manual_seed(0)
model = toylib.TinyEncoder().eval()
compiled = torch.compile(model, backend="eager")
inputs = {"input_ids": torch.randint(0, 50, (2, 6))}
with torch.no_grad():
    for _ in range(2):
        out = compiled(**inputs, attention_mask=torch.ones_like(inputs['input_ids']))
        print(f"{out.sum().item():.5f}")
