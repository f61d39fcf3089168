# triggers TCD220 at line 12
import torch

model = torch.nn.Linear(8, 8)
model(torch.rand(8)).sum().backward()
opt = torch.optim.Adam(model.parameters(), lr=0.01)
sched = torch.optim.lr_scheduler.LinearLR(opt, total_iters=5)


@torch.compile(backend="eager")
def step():
    opt.step()
    sched.step()


for _ in range(4):
    step()
