import torch


def step(x):
    print("step")  # the break the project lives with
    return x + 1


torch.compile(step, backend="eager")(torch.ones(2))


def other(x):
    x = x * 2
    print("other")  # a new break
    return x - 1


torch.compile(other, backend="eager")(torch.ones(2))
