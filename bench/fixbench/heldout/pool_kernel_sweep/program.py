import torch
from torch import nn


@torch.compile(backend="eager")
def smooth(image, kernel):
    return nn.functional.avg_pool2d(image, kernel, stride=1, padding=kernel // 2, count_include_pad=False)


torch.manual_seed(0)
image = torch.rand(1, 1, 24, 24)
sharpness = []
for kernel in range(1, 21, 2):
    blurred = smooth(image, kernel)
    sharpness.append((blurred[..., 1:] - blurred[..., :-1]).abs().mean().item())
print("sharpness", [round(s, 5) for s in sharpness])
