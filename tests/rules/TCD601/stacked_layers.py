# triggers TCD601 at line 19
# capture: doctor explain --fresh-inductor-cache
import torch
from torch import nn

DEPTH, WIDTH = 6, 64


class MixerLayer(nn.Module):
    """One MLP-mixer layer: mix across tokens, then across channels."""

    def __init__(self, tokens: int = 16, width: int = WIDTH) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.token_mix = nn.Linear(tokens, tokens)
        self.channel_mix = nn.Linear(width, width)

    def forward(self, x):
        x = x + self.token_mix(self.norm(x).transpose(1, 2)).transpose(1, 2)
        return x + self.channel_mix(torch.relu(self.norm(x)))


class Mixer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.ModuleList(MixerLayer() for _ in range(DEPTH))
        self.head = nn.Linear(WIDTH, 10)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.head(x.mean(dim=1))


def main() -> None:
    model = torch.compile(Mixer().eval())
    with torch.no_grad():
        for _ in range(3):
            model(torch.randn(4, 16, WIDTH))


if __name__ == "__main__":
    main()
