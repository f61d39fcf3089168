# triggers TCD222 at line 13
import torch


class Block(torch.nn.Module):
    def __init__(self, with_bias):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)
        if with_bias:
            self.bias_layer = torch.nn.Linear(4, 4)  # only some blocks own it
        self.with_bias = with_bias

    def forward(self, x):
        y = self.fc(x)
        if "bias_layer" in self._modules:
            y = y + self.bias_layer(x)
        return y


blocks = [Block(True), Block(False)]
compiled = [torch.compile(b, backend="eager") for b in blocks]
for _ in range(2):
    for block in compiled:
        block(torch.ones(2, 4))
