# triggers TCD402 at line 7
import torch

torch._dynamo.config.recompile_limit = 2


def warmup_scale(x, step):
    return x * min(1.0, (step + 1) / 10)


def main():
    f = torch.compile(warmup_scale, backend="eager", dynamic=False)
    for step in range(4):
        y = f(torch.ones(2), step)
    return y


main()
