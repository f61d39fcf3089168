# triggers TCD123 at line 7
import torch
from tqdm import tqdm


def refine(x):
    for _ in tqdm(range(3), disable=True):
        x = x * 0.5 + 1
    return x


f = torch.compile(refine, backend="eager")
f(torch.ones(3))
