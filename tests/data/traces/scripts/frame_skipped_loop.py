# A print inside a for loop: Dynamo cannot resume in a loop, so it skips the whole frame (GB7000).
import torch


def fn(x):
    for i in range(3):
        x = x + i
        print("step", i)
    return x


compiled = torch.compile(fn, backend="eager")
compiled(torch.ones(4))
