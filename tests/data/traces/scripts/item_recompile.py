# .item() in a helper reached from two call sites, over 3 steps: the Python scalars flow into the
# resume functions as constants, so they recompile on the next step.
import torch  # noqa: I001 (item_metrics is the local helper next to this script)
import torch.nn as nn

from item_metrics import masked_accuracy


class TwoHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.head1 = nn.Linear(8, 2)
        self.head2 = nn.Linear(8, 2)

    def forward(self, x, target, mask):
        logits1 = self.head1(x)
        logits2 = self.head2(x)
        acc1 = masked_accuracy(logits1, target, mask)
        acc2 = masked_accuracy(logits2, target, mask)
        return acc1, acc2


torch.manual_seed(0)
model = torch.compile(TwoHead(), backend="eager")
for step in range(3):  # noqa: B007
    x = torch.randn(16, 8)
    target = torch.randint(0, 2, (16,))
    mask = torch.rand(16) > 0.2
    model(x, target, mask)
