# Inference over length-bucketed batches with a compiled transformer encoder layer.
# Expected findings (torch 2.13, CPU):
#   - recompile, shape_or_rank: forward (shape_recompile.py:14) recompiles 3 times for sequence lengths 32, 48, 64 with dynamic=False ("tensor 'ids' size mismatch at index 1 ..."); below the recompile limit
import torch
import torch.nn as nn


class SentenceEncoder(nn.Module):
    def __init__(self, vocab=500, dim=32):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.layer = nn.TransformerEncoderLayer(dim, nhead=4, dim_feedforward=64, batch_first=True)

    def forward(self, ids):
        return self.layer(self.emb(ids)).mean(dim=1)


def main():
    torch.manual_seed(0)
    model = SentenceEncoder().eval()
    cmodel = torch.compile(model, backend="eager", dynamic=False)
    bucket_lengths = [16, 16, 32, 48, 32, 64]
    with torch.no_grad():
        for length in bucket_lengths:
            ids = torch.randint(0, 500, (8, length))
            emb = cmodel(ids)
            print(f"length {length}: embedding norm {emb.norm():.3f}")


if __name__ == "__main__":
    main()
