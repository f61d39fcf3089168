# a nanoGPT-style loop: estimate_loss() runs the compiled model under @torch.no_grad() and model.eval()
import torch

model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Dropout(0.1), torch.nn.Linear(8, 1))
cmodel = torch.compile(model, backend="eager")
opt = torch.optim.SGD(model.parameters(), lr=0.1)


@torch.no_grad()
def estimate_loss():
    model.eval()
    loss = cmodel(torch.randn(4, 8)).pow(2).mean()
    model.train()
    return loss


for step in range(4):
    loss = cmodel(torch.randn(4, 8)).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
    if step % 2 == 1:
        estimate_loss()
