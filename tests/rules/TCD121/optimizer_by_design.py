# triggers TCD121 at line 12
import torch

model = torch.nn.Linear(4, 1)
opt = torch.optim.Adam(model.parameters(), lr=torch.tensor(0.01))
model(torch.ones(2, 4)).sum().backward()


# the PyTorch recipe: compile the optimizer step on its own; torch.optim's own graph_break() is by design
@torch.compile(backend="eager")
def step():
    opt.step()


step()
