# triggers TCD403 at line 43
"""A decorated model forward (`functools.wraps` wrappers, as transformers' `merge_with_config_defaults` and
`capture_outputs`) skipped by a break inside its loop: each wrapper is named by the forward it wraps."""

import functools

import torch

calls = []


def with_defaults(func):
    @functools.wraps(func)
    def wrapper(self, *args, **kwargs):
        kwargs.setdefault("scale", 1.0)
        return func(self, *args, **kwargs)

    return wrapper


def recording(func):
    @functools.wraps(func)
    def wrapper(self, *args, **kwargs):
        calls.append(func.__name__)
        try:
            return func(self, *args, **kwargs)
        finally:
            calls.pop()

    return wrapper


class Stack(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(8, 8) for _ in range(3))

    @with_defaults
    @recording
    def forward(self, x, scale):
        for layer in self.layers:
            x = layer(x) * scale
            if x.sum() > 0:
                x = x.relu()
        return x


model = torch.compile(Stack(), backend="eager")
model(torch.randn(2, 8))
