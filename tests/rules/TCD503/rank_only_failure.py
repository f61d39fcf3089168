# triggers TCD503 at line 17
# capture: doctor explain --nproc-per-node 2
import torch
import torch.distributed as dist
from torch import nn


class Classifier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Linear(16, 4)
        self.log_activations = False  # switched on for the main rank, to watch training

    def forward(self, x):
        logits = self.body(x)
        if self.log_activations:
            print("logit norm", logits.norm())
        return logits


def main() -> None:
    dist.init_process_group("gloo")
    model = Classifier()
    model.log_activations = dist.get_rank() == 0
    compiled = torch.compile(model, backend="eager", fullgraph=True)
    x = torch.randn(8, 16)
    try:
        logits = compiled(x)
    except torch._dynamo.exc.Unsupported:
        logits = model(x)  # this rank runs the step eagerly
    dist.all_reduce(logits)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
