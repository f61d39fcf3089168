# A compiled function holding the network and its post-processing (issue 33, bug 6): the threshold mask and the
# boolean index break the graph; the fix offered compiles the network and leaves the post-processing out.
import torch
from torch import nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 5))


@torch.compile(backend="eager")
def detect(x, threshold):
    logits = net(x)
    scores = logits.sigmoid()
    keep = scores.max(dim=1).values > threshold
    return scores[keep]


with torch.no_grad():
    for batch in range(3):
        print(detect(torch.randn(6 + batch, 8), 0.5).shape)
