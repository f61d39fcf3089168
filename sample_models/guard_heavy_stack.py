# A deep stack of tiny residual blocks, each adding its own constant offset, compiled once.
# Expected findings (torch 2.13, CPU):
#   - guard cost (TCD212): Stack.forward (guard_heavy_stack.py:24) checks 400+ guards before every call,
#     100 of them `self.blocks[k].offset == k` EQUALS_MATCH guards from guard_heavy_stack.py:16
#   - no graph breaks, no recompiles
import torch
import torch.nn as nn


class AddOffset(nn.Module):
    def __init__(self, offset):
        super().__init__()
        self.offset = offset

    def forward(self, x):
        return x + self.offset


class Stack(nn.Module):
    def __init__(self, depth=100):
        super().__init__()
        self.blocks = nn.ModuleList(AddOffset(i) for i in range(depth))

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


def main():
    model = torch.compile(Stack(), backend="eager")
    x = torch.zeros(4)
    for _ in range(3):
        out = model(x)
    print("sum of offsets", out[0].item())  # 0 + 1 + ... + 99 = 4950


if __name__ == "__main__":
    main()
