# triggers TCD216 at line 6
import torch


def standardize(batch):
    spread = batch.std().item()  # a Python float, read inside the compiled code
    return (batch - batch.mean()) / spread


normalize = torch.compile(standardize, backend="eager")
for _ in range(3):
    normalize(torch.randn(32, 8))
