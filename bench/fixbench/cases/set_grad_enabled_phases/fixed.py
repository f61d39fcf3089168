import torch
from torch import nn


class Trainer:
    def __init__(self):
        self.net = nn.Sequential(nn.Linear(6, 12), nn.GELU(), nn.Linear(12, 1))
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.05)
        self.loss_fn = torch.compile(self.compute_loss, backend="eager")

    def compute_loss(self, x, y):
        return nn.functional.mse_loss(self.net(x), y)

    def run_phase(self, phase, x, y):
        with torch.set_grad_enabled(phase == "train"):
            # validation runs eagerly: no second graph for grad mode off
            loss = self.loss_fn(x, y) if phase == "train" else self.compute_loss(x, y)
            if phase == "train":
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
        return loss.item()


torch.manual_seed(0)
trainer = Trainer()
x, y = torch.randn(32, 6), torch.randn(32, 1)
vx, vy = torch.randn(8, 6), torch.randn(8, 1)
for epoch in range(3):
    train = trainer.run_phase("train", x, y)
    val = trainer.run_phase("val", vx, vy)
    print(f"epoch {epoch} train {train:.5f} val {val:.5f}")
