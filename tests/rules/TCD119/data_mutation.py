# triggers TCD119 at line 8
import torch

model = torch.nn.Linear(4, 4)


def to_half_and_run(x):
    model.weight.data = model.weight.data.half()
    return x * 2


f = torch.compile(to_half_and_run, backend="eager")
f(torch.ones(2, 4))
