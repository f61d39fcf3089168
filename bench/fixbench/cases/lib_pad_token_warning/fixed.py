import warnings

import torch
from genlib import Config, LMHeadModel

warnings.simplefilter("ignore")
torch.manual_seed(0)
lm = LMHeadModel(Config()).eval()
lm.config.pad_token_id = 0  # no input uses id 0, as before
model = torch.compile(lm, backend="eager")
ids = torch.randint(1, 20, (2, 6))
with torch.no_grad():
    for _ in range(3):
        logits = model(ids)
print(f"logits {logits.sum().item():.5f} next {logits[:, -1].argmax(-1).tolist()}")
