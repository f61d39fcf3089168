import torch


def step(x):
    return x + 1


torch.compile(step, backend="eager")(torch.ones(2))
