# triggers TCD202 at line 5 (variable: step)
import torch


def decayed(x, step):
    return x * (0.9**step)


def main():
    f = torch.compile(decayed, backend="eager", dynamic=False)
    x = torch.ones(4)
    for step in range(3):
        y = f(x, step)
    return y


main()
