# triggers TCD114 at line 9
import torch

HISTORY = []


def eval_step(model, x):
    loss = model(x).pow(2).mean()
    HISTORY.append(str(loss))
    return loss


model = torch.nn.Linear(4, 1)
f = torch.compile(eval_step, backend="eager")
f(model, torch.ones(3, 4))
