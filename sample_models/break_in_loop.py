# Spectral-norm estimate by power iteration, recording the convergence history.
# Expected findings (torch 2.13, CPU):
#   - graph break, item_or_scalar: Tensor.item() inside the for-loop at break_in_loop.py:14 in spectral_norm_estimate (GB0124); break in a loop (GB7000), so the whole frame is skipped and runs eagerly
import torch
import torch.nn.functional as F


def spectral_norm_estimate(weight, v, iters=20):
    history = []
    for _ in range(iters):
        u = F.normalize(weight @ v, dim=0)
        v = F.normalize(weight.T @ u, dim=0)
        sigma = torch.dot(u, weight @ v)
        history.append(sigma.item())
    return sigma, history


def main():
    torch.manual_seed(0)
    estimate = torch.compile(spectral_norm_estimate, backend="eager")
    for layer in range(3):
        weight = torch.randn(32, 16)
        v = torch.randn(16)
        sigma, history = estimate(weight, v)
        exact = torch.linalg.matrix_norm(weight, ord=2)
        print(f"layer {layer}: sigma {sigma:.4f} exact {exact:.4f} after {len(history)} iters")


if __name__ == "__main__":
    main()
