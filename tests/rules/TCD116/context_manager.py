# triggers TCD116 at line 8
import contextlib

import torch


def quiet_forward(model, x):
    with contextlib.redirect_stdout(None):
        out = model(x)
    return out.relu()


model = torch.nn.Linear(4, 2)
f = torch.compile(quiet_forward, backend="eager")
f(model, torch.ones(3, 4))
