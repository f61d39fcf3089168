# triggers TCD603 at line 16
# capture: doctor explain --fresh-inductor-cache
import torch
from torch import nn


class IntentClassifier(nn.Module):
    """Bag-of-tokens intent model behind a small inference service."""

    def __init__(self, vocab: int = 5000, dim: int = 64, intents: int = 12) -> None:
        super().__init__()
        self.embed = nn.EmbeddingBag(vocab, dim, mode="mean")
        self.hidden = nn.Linear(dim, dim)
        self.out = nn.Linear(dim, intents)

    def forward(self, tokens, offsets):
        return self.out(torch.tanh(self.hidden(self.embed(tokens, offsets)))).softmax(-1)


def serve(model, requests):
    with torch.inference_mode():
        return [model(tokens, torch.tensor([0])).argmax(-1).item() for tokens in requests]


def main() -> None:
    model = torch.compile(IntentClassifier().eval())  # compiled at start-up, on every new replica
    requests = [torch.randint(0, 5000, (12,)) for _ in range(4)]
    print(serve(model, requests))


if __name__ == "__main__":
    main()
