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


@torch.compile(backend="eager")
def classify(sentences):
    ids = torch.tensor([[VOCAB[w] for w in s.split()] for s in sentences])
    return net(ids).softmax(-1)


with torch.no_grad():
    for _ in range(3):
        probs = classify(["the cat sat on mat", "a dog ran on mat"])
print("probs", [round(v, 5) for v in probs[:, 1].tolist()])
