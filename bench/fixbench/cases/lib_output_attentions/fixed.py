import warnings

import torch
from tinyformer import Encoder

warnings.simplefilter("ignore")
torch.manual_seed(0)
encoder = Encoder().eval()
model = torch.compile(encoder, backend="eager")
x = torch.randn(2, 5, 16)
with torch.no_grad():
    for _ in range(3):
        hidden, _ = model(x)
print(f"hidden {hidden.sum().item():.5f} {hidden.std().item():.5f}")
