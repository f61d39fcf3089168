import torch


@torch.compile(backend="eager")
def update_memory(memory, keys, values):
    valid = keys >= 0
    # invalid keys write their row back onto itself (row 0, value unchanged)
    safe_keys = torch.where(valid, keys, torch.zeros_like(keys))
    memory = memory.clone()
    current = memory[safe_keys]
    memory.index_put_((safe_keys,), torch.where(valid.unsqueeze(-1), values, current))
    return memory


torch.manual_seed(0)
memory = torch.zeros(10, 3)
for _ in range(4):
    keys = torch.randint(-3, 10, (6,))
    values = torch.randn(6, 3)
    memory = update_memory(memory, keys, values)
print(f"memory sum {memory.sum().item():.5f} abs {memory.abs().sum().item():.5f}")
