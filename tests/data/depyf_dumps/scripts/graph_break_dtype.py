# A print splits `scale` in two graphs; a float64 call recompiles both parts.
# Expected (torch 2.13, depyf 0.20): frames `scale` (2 entries) and
# `torch_dynamo_resume_in_scale_at_10` (2 entries), each guarding the dtype of `x` / `y`.
import torch


@torch.compile(backend="eager")
def scale(x):
    y = x * 2
    print("scaled", tuple(y.shape))
    return y + 1


if __name__ == "__main__":
    scale(torch.ones(3))
    scale(torch.ones(3, dtype=torch.float64))
