# capture: doctor explain --timeout 15
import time

import torch


def step(x):
    print("step")  # the break the project lives with
    return x + 1


torch.compile(step, backend="eager")(torch.ones(2))
time.sleep(600)  # the job hangs here: the doctor's --timeout stops it
