# Feature encoder that rescales its embedding when the norm grows too large.
# Expected findings (torch 2.13, CPU):
#   - graph break, data_dependent_branch: `if total > self.max_norm` on a tensor at data_dependent_branch.py:18 in forward (GB0170 'Data-dependent branching')
import torch
import torch.nn as nn


class NormClippedEncoder(nn.Module):
    def __init__(self, in_dim=16, dim=32, max_norm=5.0):
        super().__init__()
        self.proj = nn.Linear(in_dim, dim)
        self.norm = nn.LayerNorm(dim)
        self.max_norm = max_norm

    def forward(self, x):
        h = self.norm(torch.tanh(self.proj(x)))
        total = h.norm()
        if total > self.max_norm:
            h = h * (self.max_norm / total)
        return h


def main():
    torch.manual_seed(0)
    encoder = NormClippedEncoder()
    cencoder = torch.compile(encoder, backend="eager")
    with torch.no_grad():
        for batch in range(3):
            x = torch.randn(8, 16)
            out = cencoder(x)
            print(f"batch {batch}: out norm {out.norm():.3f}")


if __name__ == "__main__":
    main()
