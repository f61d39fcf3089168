# triggers TCD604 at line 16
# recorded on a warm inductor cache: this program had run once before on the same machine (`python second_run.py`)
import torch
from torch import nn


class ClickRanker(nn.Module):
    """Scores candidate items for a user from their features; evaluated every night."""

    def __init__(self, features: int = 32) -> None:
        super().__init__()
        self.tower = nn.Sequential(nn.Linear(features, 128), nn.GELU(), nn.Linear(128, 64), nn.GELU())
        self.score = nn.Linear(64, 1)
        self.norm = nn.LayerNorm(features)

    def forward(self, candidates):
        return self.score(self.tower(self.norm(candidates))).squeeze(-1).sigmoid()


def main() -> None:
    model = torch.compile(ClickRanker().eval())
    with torch.no_grad():
        scores = [model(torch.randn(256, 32)) for _ in range(4)]
    print("mean score", torch.cat(scores).mean().item())


if __name__ == "__main__":
    main()
