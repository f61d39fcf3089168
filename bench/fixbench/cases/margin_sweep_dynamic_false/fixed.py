import torch

torch.manual_seed(0)
anchor, positive, negative = torch.randn(3, 64, 16).unbind(0)


def triplet_loss(a, p, n, margin):
    d_ap = (a - p).pow(2).sum(-1)
    d_an = (a - n).pow(2).sum(-1)
    return torch.clamp(d_ap - d_an + margin, min=0.0).mean()


loss_fn = torch.compile(triplet_loss, backend="eager", dynamic=False)
margins = [0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0]
results = [loss_fn(anchor, positive, negative, torch.tensor(m)).item() for m in margins]
print("losses", [round(v, 5) for v in results])
