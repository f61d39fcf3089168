import torch


@torch.compile(backend="eager")
def update_memory(memory, keys, values):
    hit = (keys >= 0).nonzero(as_tuple=True)[0]
    memory = memory.clone()
    memory[keys[hit]] = values[hit]
    return memory


torch.manual_seed(0)
memory = torch.zeros(10, 3)
for _ in range(4):
    keys = torch.randperm(10)[:6]
    keys[torch.rand(6) < 0.3] = -1  # slots with nothing to write
    values = torch.randn(6, 3)
    memory = update_memory(memory, keys, values)
print(f"memory sum {memory.sum().item():.5f} abs {memory.abs().sum().item():.5f}")
