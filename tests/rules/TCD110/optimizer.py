# triggers TCD110 at line 9
import torch

model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)


def train_step(x, y):
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    return loss


step = torch.compile(train_step, backend="eager")
step(torch.ones(8, 4), torch.zeros(8, 1))
