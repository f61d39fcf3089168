# triggers TCD420 at line 17
# capture: doctor explain --fresh-inductor-cache
import torch
from torch import nn


class Retriever(nn.Module):
    """Scores every catalogue item for each query and keeps the best k."""

    def __init__(self, items: int = 400, dim: int = 16, k: int = 5) -> None:
        super().__init__()
        self.items = nn.Parameter(torch.randn(items, dim))
        self.k = k

    def forward(self, queries):
        scores = queries @ self.items.T
        best_scores, best_items = scores.topk(self.k, dim=-1)
        return best_scores.softmax(-1), best_items


def main() -> None:
    model = torch.compile(Retriever().eval())
    with torch.no_grad():
        model(torch.randn(8, 16))


if __name__ == "__main__":
    main()
