import torch


def pick_prototype(scores, prototypes):
    best = scores.argmax().item()
    return prototypes[best] * scores.max()


torch.manual_seed(0)
pick = torch.compile(pick_prototype, backend="eager")
prototypes = torch.randn(4, 6)
outs = [pick(torch.randn(4), prototypes) for _ in range(4)]
print("picked", [round(v, 4) for v in torch.stack(outs).sum(dim=0).tolist()])
