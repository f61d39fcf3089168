import torch
import torch.nn as nn


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(4, 2)

    def forward(self, x):
        return self.net(x).softmax(-1)


torch.manual_seed(0)
policy = torch.compile(Policy(), backend="eager")


@torch.compile(backend="eager")
def act(obs):
    return policy(obs).argmax(-1)  # a compiled module called from inside a compiled function


for _ in range(3):
    print("action", act(torch.ones(3, 4)).tolist())
