import torch


def step(x):
    x = x + 1
    print("<script>alert(1)</script> | **bold** `tick` [31mred[0m, %0A::error::")
    return x * 2


torch.compile(step, backend="eager")(torch.ones(2))
