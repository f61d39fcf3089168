import torch
from torch import nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(12, 24), nn.GELU(), nn.Linear(24, 4)).eval()
model = torch.compile(net, backend="eager")
batches = [torch.randn(5, 12) for _ in range(3)]
with torch.no_grad():
    outs = [model(b) for b in batches]
    with torch.autocast("cpu", dtype=torch.bfloat16):
        low = net(batches[0])  # the one bf16 check runs eagerly
print(f"fp32 {sum(o.sum().item() for o in outs):.4f}")
print(f"bf16 argmax {low.float().argmax(-1).tolist()}")
