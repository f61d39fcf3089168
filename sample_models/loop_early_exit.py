# Fixed-point solver for a small implicit layer (DEQ style) that stops early once converged.
# Expected findings (torch 2.13, CPU):
#   - graph break, data_dependent_branch: `if (...).max() < tol` inside the for-loop at loop_early_exit.py:13 in fixed_point_solve (GB0170); the frame is NOT skipped, 7 log records
#   - recompile, other: resume function torch_dynamo_resume_in_fixed_point_solve_at_13 recompiles 5 times on the loop position ("___normalize_range_iter(___stack0) == (1, 30, 1)", ...)
import torch
import torch.nn as nn


def fixed_point_solve(layer, x, max_iter=30, tol=1e-4):
    z = torch.zeros_like(x)
    for _ in range(max_iter):
        z_next = torch.tanh(layer(z) + x)
        if (z_next - z).abs().max() < tol:
            return z_next
        z = z_next
    return z


def main():
    torch.manual_seed(0)
    layer = nn.Linear(16, 16)
    with torch.no_grad():
        layer.weight.mul_(0.3)
    solve = torch.compile(fixed_point_solve, backend="eager")
    for batch in range(3):
        x = torch.randn(4, 16)
        z = solve(layer, x)
        print(f"batch {batch}: residual {(torch.tanh(layer(z) + x) - z).abs().max():.2e}")


if __name__ == "__main__":
    main()
