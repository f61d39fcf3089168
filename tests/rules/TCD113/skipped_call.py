# triggers TCD113 at line 8
import zlib

import torch


def checksum_forward(model, x):
    tag = zlib.crc32(b"batch")
    out = model(x)
    return out, tag


model = torch.nn.Linear(4, 2)
f = torch.compile(checksum_forward, backend="eager")
f(model, torch.ones(3, 4))
