"""doctor fix case: episodes of different lengths; the compiled loss gets each episode's steps stacked at the call
(`torch.stack(values)`, where the user's `values` is a list), so a mark on `values` would crash: the stacked
tensors are bound to names first and marked together (torch ties their lengths)."""

import torch


@torch.compile(backend="eager")
def episode_loss(log_probs, values, returns):
    advantage = returns - values.detach()
    return -(log_probs * advantage).mean() + 0.5 * ((values - returns) ** 2).mean()


torch.manual_seed(0)
for length in (5, 7, 9, 11):
    log_probs, values = [], []
    for step in range(length):
        log_probs.append(torch.tensor(-0.1 * (step + 1)))
        values.append(torch.tensor(0.05 * step))
    returns = torch.linspace(1.0, 0.0, length)
    values_tensor = torch.stack(values)
    log_probs_tensor = torch.stack(log_probs)
    torch._dynamo.mark_dynamic(values_tensor, 0)
    torch._dynamo.mark_dynamic(log_probs_tensor, 0)
    torch._dynamo.mark_dynamic(returns, 0)
    loss = episode_loss(log_probs_tensor, values_tensor, returns)
    print(f"length {length}: loss {loss.item():.4f}")
