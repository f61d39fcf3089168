"""Three inputs of one length that changes between calls (an episode's log-probs, values and returns, as an
actor-critic update gets them): marking one of them dynamic alone raises ConstraintViolationError where the
code combines it with the others; the fix marks the same dimension of all three."""

import torch


@torch.compile(backend="eager")
def a2c_loss(log_probs, values, returns):
    advantage = returns - values.detach()
    return -(log_probs * advantage).mean() + 0.5 * (values - returns).pow(2).mean()


def returns_of(rewards):
    return torch.tensor(rewards).flip(0).cumsum(0).flip(0)


for length in (16, 20):
    log_probs = [torch.randn(()) for _ in range(length)]
    values = [torch.randn(()) for _ in range(length)]
    rewards = [1.0] * length
    values_tensor = torch.stack(values)
    log_probs_tensor = torch.stack(log_probs)
    returns_tensor = returns_of(rewards)
    torch._dynamo.mark_dynamic(values_tensor, 0)
    torch._dynamo.mark_dynamic(log_probs_tensor, 0)
    torch._dynamo.mark_dynamic(returns_tensor, 0)
    print(a2c_loss(log_probs_tensor, values_tensor, returns_tensor).item())
