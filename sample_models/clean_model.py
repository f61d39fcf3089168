# Small CNN classifier trained for a few steps with a compiled model (a clean baseline).
# Expected findings (torch 2.13, CPU):
#   - none (clean model)
import torch
import torch.nn as nn


class TinyCNN(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        self.classifier = nn.Linear(32, classes)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


def main():
    torch.manual_seed(0)
    model = TinyCNN()
    cmodel = torch.compile(model, backend="aot_eager")
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    images = torch.randn(32, 3, 16, 16)
    labels = torch.randint(0, 10, (32,))
    for step in range(5):
        loss = nn.functional.cross_entropy(cmodel(images), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
