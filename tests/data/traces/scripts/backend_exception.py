# A backend that fails with a fake-tensor exception Dynamo may fall back from: torch logs a
# "WON'T CONVERT" record and a graph break that skips the frame ("Backend compiler exception").
import torch
from torch._subclasses.fake_tensor import UnsupportedOperatorException


def failing_backend(gm, example_inputs):
    raise UnsupportedOperatorException(torch.ops.aten.add.Tensor)


def fn(x):
    return x.sin() + 1


torch.compile(fn, backend=failing_backend)(torch.ones(4))
