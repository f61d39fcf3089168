# Small text classifier whose forward prints and logs activation statistics while debugging.
# Expected findings (torch 2.13, CPU):
#   - graph break, print_or_logging: print() of a tensor at print_logging.py:23 in forward (GB0059 'Failed to trace builtin operator')
#   - graph break, print_or_logging: logger.info() with a tensor at print_logging.py:25 in forward (GB0291 'logging.Logger method not supported for non-export cases')
#   - graph break, print_or_logging: Dynamo then traces into the stdlib Logger.info and breaks again at logging/__init__.py:1488 (self.isEnabledFor, GB0291), reached from print_logging.py:25
import logging

import torch
import torch.nn as nn

logger = logging.getLogger("classifier")


class TextClassifier(nn.Module):
    def __init__(self, vocab=100, dim=32, classes=4):
        super().__init__()
        self.emb = nn.EmbeddingBag(vocab, dim)
        self.hidden = nn.Linear(dim, dim)
        self.out = nn.Linear(dim, classes)

    def forward(self, ids):
        h = torch.relu(self.hidden(self.emb(ids)))
        print("hidden mean:", h.mean())
        logits = self.out(h)
        logger.info("logits max %s", logits.max())
        return logits


def main():
    torch.manual_seed(0)
    model = TextClassifier()
    cmodel = torch.compile(model, backend="eager")
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(3):
        ids = torch.randint(0, 100, (8, 12))
        labels = torch.randint(0, 4, (8,))
        loss = nn.functional.cross_entropy(cmodel(ids), labels)
        loss.backward()
        opt.step()
        opt.zero_grad()
    print("final loss", loss.item())


if __name__ == "__main__":
    main()
