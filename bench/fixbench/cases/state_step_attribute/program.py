from dataclasses import dataclass

import torch


@dataclass
class EMAState:
    average: torch.Tensor
    step: int = 0


@torch.compile(backend="eager")
def ema_update(state, value, decay=0.9):
    state.step += 1
    correction = 1 - decay**state.step
    state.average = decay * state.average + (1 - decay) * value
    return state.average / correction


torch.manual_seed(0)
state = EMAState(average=torch.zeros(4))
for _ in range(6):
    smoothed = ema_update(state, torch.randn(4))
print(f"step {state.step} smoothed {smoothed.sum().item():.5f}")
