# Image classifier training step that also returns the batch accuracy as a Python float.
# Expected findings (torch 2.13, CPU):
#   - graph break, item_or_scalar: Tensor.item() for the accuracy at item_metric.py:19 in forward (GB0124); no recompiles
import torch
import torch.nn as nn
import torch.nn.functional as F


class SmallConvNet(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.conv = nn.Conv2d(1, 8, 3, padding=1)
        self.fc = nn.Linear(8 * 14 * 14, classes)

    def forward(self, images, labels):
        h = F.max_pool2d(F.relu(self.conv(images)), 2)
        logits = self.fc(h.flatten(1))
        loss = F.cross_entropy(logits, labels)
        correct = (logits.argmax(dim=1) == labels).sum().item()
        accuracy = correct / labels.shape[0]
        return loss, accuracy


def main():
    torch.manual_seed(0)
    model = SmallConvNet()
    cmodel = torch.compile(model, backend="aot_eager")
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(4):
        images = torch.randn(16, 1, 28, 28)
        labels = torch.randint(0, 10, (16,))
        loss, accuracy = cmodel(images, labels)
        loss.backward()
        opt.step()
        opt.zero_grad()
        print(f"step {step} loss {loss.item():.3f} acc {accuracy:.2f}")


if __name__ == "__main__":
    main()
