import re

import torch
from torch import nn

VOCAB = {w: i for i, w in enumerate("the a cat dog sat ran on mat fast slow".split())}


class BagOfWords(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.EmbeddingBag(len(VOCAB), 8, mode="mean")
        self.out = nn.Linear(8, 2)

    def forward(self, ids):
        return self.out(self.emb(ids))


torch.manual_seed(0)
net = BagOfWords().eval()
compiled_net = torch.compile(net, backend="eager")


def classify(sentences):
    ids = torch.tensor([[VOCAB[w] for w in re.findall(r"[a-z]+", s.lower())] for s in sentences])
    return compiled_net(ids).softmax(-1)


BATCHES = [
    ["The cat sat.", "A dog ran."],
    ["The dog sat.", "A cat ran."],
    ["The mat ran!", "A fast dog."],
    ["A slow cat.", "The fast mat."],
]
with torch.no_grad():
    probs = [classify(batch)[:, 1].tolist() for batch in BATCHES]
print("probs", [round(v, 5) for row in probs for v in row])
