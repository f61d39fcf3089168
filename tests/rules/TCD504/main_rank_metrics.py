# triggers TCD504 at line 17
# capture: doctor explain --nproc-per-node 2
import torch
import torch.distributed as dist
from torch import nn


class Classifier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Linear(16, 4)

    def forward(self, x):
        return self.body(x)


def batch_accuracy(logits, labels):
    return (logits.argmax(-1) == labels).float().mean()


def main() -> None:
    dist.init_process_group("gloo")
    model = torch.compile(Classifier(), backend="eager")
    accuracy = torch.compile(batch_accuracy, backend="eager")
    x, labels = torch.randn(8, 16), torch.randint(0, 4, (8,))
    logits = model(x)
    if dist.get_rank() == 0:  # only the main rank reports metrics
        print("accuracy", accuracy(logits, labels).item())
    loss = torch.nn.functional.cross_entropy(logits, labels)
    dist.all_reduce(loss)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
