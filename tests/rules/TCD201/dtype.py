# triggers TCD201 at line 5 (variable: x)
import torch


def standardize(x):
    return (x - x.mean()) / x.std()


def main():
    f = torch.compile(standardize, backend="eager")
    for x in (torch.rand(8), torch.rand(8, dtype=torch.float64)):
        out = f(x)
    return out


main()
