import warnings

import torch
from minilib import Config, Encoder

warnings.simplefilter("ignore")
torch.manual_seed(0)
encoder = Encoder(Config()).eval()
model = torch.compile(encoder, backend="eager")
ids = torch.randint(1, 10, (2, 5))
with torch.no_grad():
    for _ in range(2):
        hidden, _ = model(ids, return_scores=True)
print(f"hidden {hidden.sum().item():.4f}")
