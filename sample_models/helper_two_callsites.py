# Encoder-decoder autoencoder instrumented with timing marks from helper_lib.
# Expected findings (torch 2.13, CPU):
#   - graph break, unsupported_builtin_or_c_function: time.perf_counter() in helper_lib.py:10 (mark), one unique break with two call sites helper_two_callsites.py:18 and :20 in forward (GB0007 'Attempted to call function marked as skipped', 2 log records)
import torch
import torch.nn as nn

from helper_lib import mark, report


class AutoEncoder(nn.Module):
    def __init__(self, dim=64, latent=8):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(dim, 32), nn.ReLU(), nn.Linear(32, latent))
        self.decoder = nn.Sequential(nn.Linear(latent, 32), nn.ReLU(), nn.Linear(32, dim))

    def forward(self, x):
        z = self.encoder(x)
        mark("encoder")
        recon = self.decoder(z)
        mark("decoder")
        return recon


def main():
    torch.manual_seed(0)
    model = AutoEncoder()
    cmodel = torch.compile(model, backend="aot_eager")
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(3):
        x = torch.randn(16, 64)
        loss = nn.functional.mse_loss(cmodel(x), x)
        loss.backward()
        opt.step()
        opt.zero_grad()
    report()
    print("loss", round(loss.item(), 4))


if __name__ == "__main__":
    main()
