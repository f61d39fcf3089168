# Observation normaliser for an RL policy that tracks running mean/variance of its inputs.
# Expected findings (torch 2.13, CPU):
#   - recompile, module_attribute: forward (module_counter.py:15) recompiles 3 times because the int attribute self.count changes ("self.count == 0", 1, 2); below the recompile limit
import torch
import torch.nn as nn


class RunningNormalizer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.register_buffer("mean", torch.zeros(dim))
        self.register_buffer("var", torch.ones(dim))
        self.count = 0

    def forward(self, obs):
        if self.training:
            self.count += 1
            momentum = 1.0 / self.count
            self.mean.lerp_(obs.mean(dim=0), momentum)
            self.var.lerp_(obs.var(dim=0), momentum)
        return (obs - self.mean) / (self.var + 1e-5).sqrt()


def main():
    torch.manual_seed(0)
    norm = RunningNormalizer(8)
    policy = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 2))
    cnorm = torch.compile(norm, backend="eager")
    with torch.no_grad():
        for rollout in range(4):
            obs = torch.randn(64, 8) * 3.0 + 1.0
            actions = policy(cnorm(obs))
            print(f"rollout {rollout}: action std {actions.std():.3f}")
    print("running mean", norm.mean[:3])


if __name__ == "__main__":
    main()
