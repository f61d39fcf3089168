# triggers TCD205 at line 5
import torch


def mlp(x, act):
    return act(x * 2) + 1


def main():
    f = torch.compile(mlp, backend="eager")
    x = torch.ones(4)
    for act in (torch.relu, torch.tanh):
        y = f(x, act)
    return y


main()
