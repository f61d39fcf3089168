# a comment


import torch


def step(x):
    print("step")  # the break the project lives with
    return x + 1


torch.compile(step, backend="eager")(torch.ones(2))
