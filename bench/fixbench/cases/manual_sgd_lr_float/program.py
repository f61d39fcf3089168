import math

import torch


@torch.compile(backend="eager")
def sgd_update(param, grad, lr):
    return param - lr * grad


torch.manual_seed(0)
w = torch.randn(5)
target = torch.ones(5)
base_lr, steps = 0.2, 6
for step in range(steps):
    grad = 2 * (w - target)
    lr = base_lr * 0.5 * (1 + math.cos(math.pi * step / steps))
    w = sgd_update(w, grad, lr)
print(f"w {w.sum().item():.5f} dist {(w - target).norm().item():.5f}")
