# triggers TCD602 at line 20
# capture: doctor explain --fresh-inductor-cache
import torch
from torch import nn


class DigitNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.classify = nn.Linear(16 * 7 * 7, 10)

    def forward(self, images):
        return self.classify(self.features(images).flatten(1)).log_softmax(-1)


def main() -> None:
    model = torch.compile(DigitNet().eval())
    with torch.no_grad():
        for _ in range(3):
            model(torch.randn(32, 1, 28, 28))


if __name__ == "__main__":
    main()
