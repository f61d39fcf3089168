# triggers TCD406 at line 7
import torch


def accuracy(logits, labels):
    correct = (logits.argmax(-1) == labels).sum()
    return correct / labels.numel()  # doctor: ignore[TCD104]


acc = torch.compile(accuracy, backend="eager")
acc(torch.eye(4), torch.tensor([0, 1, 2, 2]))
