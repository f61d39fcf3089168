# triggers TCD301 at line 10 (variable: tokens)
import torch


class Pooler(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)

    def forward(self, tokens):
        return self.proj(tokens).mean(dim=1)


def main():
    model = torch.compile(Pooler(), backend="eager", dynamic=False)
    for length in (16, 32):
        tokens = torch.ones(2, length, 8)
        pooled = model(tokens)
    return pooled


main()
