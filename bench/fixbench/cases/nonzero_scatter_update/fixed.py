import torch


@torch.compile(backend="eager")
def update_memory(memory, keys, values):
    # invalid keys write into one spare row past the end, dropped afterwards: no data-dependent shape
    spare = memory.shape[0]
    padded = torch.cat([memory, memory.new_zeros(1, memory.shape[1])])
    padded[torch.where(keys >= 0, keys, spare)] = values
    return padded[:spare]


torch.manual_seed(0)
memory = torch.zeros(10, 3)
for _ in range(4):
    keys = torch.randperm(10)[:6]
    keys[torch.rand(6) < 0.3] = -1  # slots with nothing to write
    values = torch.randn(6, 3)
    memory = update_memory(memory, keys, values)
print(f"memory sum {memory.sum().item():.5f} abs {memory.abs().sum().item():.5f}")
