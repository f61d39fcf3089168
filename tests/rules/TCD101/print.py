# triggers TCD101 at line 8
import torch


def train_step(model, x, y):
    out = model(x)
    loss = torch.nn.functional.mse_loss(out, y)
    print("loss:", loss)
    return loss


model = torch.nn.Linear(4, 1)
step = torch.compile(train_step, backend="eager")
step(model, torch.ones(8, 4), torch.zeros(8, 1))
