# triggers TCD104 at line 7
import torch


def accuracy(logits, labels):
    correct = (logits.argmax(-1) == labels).sum()
    n_correct = correct.item()
    return n_correct / labels.numel()


acc = torch.compile(accuracy, backend="eager")
acc(torch.eye(4), torch.tensor([0, 1, 2, 2]))
