# A small pre-norm transformer encoder: sixteen identical blocks in an nn.ModuleList, the whole model compiled
# with the default inductor backend and run for a few steps (`-- --layers N` for another depth).
# Expected findings (torch 2.13, CPU, inductor, --fresh-inductor-cache): TCD601 `Block.forward` (line 22) traced
# and compiled 16 times inside `Encoder.forward` (fix: `for block in model.blocks: block.compile()`); TCD603 every
# graph compiled with an empty cache; TCD602 the C++ compile takes most of the compile time; TCD212/TCD213 guards
# of Encoder.forward (900+ guards, one in Python); TCD404 inductor's padding hint. Measured fixes: README.
import torch
import torch.nn as nn

LAYERS = 16
WIDTH = 64


class Block(nn.Module):
    def __init__(self, width=WIDTH):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def forward(self, x):
        h = self.up(self.norm(x))
        h = torch.nn.functional.gelu(h)
        return x + self.down(h)


class Encoder(nn.Module):
    def __init__(self, layers=LAYERS):
        super().__init__()
        self.blocks = nn.ModuleList(Block() for _ in range(layers))
        self.head = nn.Linear(WIDTH, 10)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.head(x.mean(dim=1))


def main():
    import sys

    layers = int(sys.argv[sys.argv.index("--layers") + 1]) if "--layers" in sys.argv else LAYERS
    torch.manual_seed(0)
    model = Encoder(layers).eval()
    compiled = torch.compile(model)
    with torch.no_grad():
        for _ in range(3):
            out = compiled(torch.randn(4, 16, WIDTH))
        x = torch.randn(4, 16, WIDTH)
        print("logits:", tuple(out.shape), "matches eager:", torch.allclose(compiled(x), model(x), atol=1e-5))


if __name__ == "__main__":
    main()
