import torch


@torch.compile(backend="eager")
def sample_probs(logits, temperature):
    return torch.softmax(logits / temperature, dim=-1)


torch.manual_seed(0)
logits = torch.randn(2, 10)
entropies = []
for temperature in (0.5, 0.7, 0.9, 1.1, 1.3):
    p = sample_probs(logits, torch.tensor(temperature))
    entropies.append(-(p * p.log()).sum(-1).mean().item())
print("entropy", [round(e, 5) for e in entropies])
