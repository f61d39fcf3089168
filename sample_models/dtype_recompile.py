# Gaussian-kernel smoothing helper, first run in float32 and then re-checked in float64.
# Expected findings (torch 2.13, CPU):
#   - recompile, dtype: gaussian_smooth (dtype_recompile.py:7) recompiles once when called with float64 after float32 ("tensor 'signal' dtype mismatch. expected Float, actual Double")
import torch


def gaussian_smooth(signal, sigma=2.0, radius=4):
    offsets = torch.arange(-radius, radius + 1, dtype=signal.dtype)
    kernel = torch.exp(-0.5 * (offsets / sigma) ** 2)
    kernel = kernel / kernel.sum()
    padded = torch.nn.functional.pad(signal[:, None, :], (radius, radius), mode="reflect")
    return torch.nn.functional.conv1d(padded, kernel.view(1, 1, -1)).squeeze(1)


def main():
    torch.manual_seed(0)
    smooth = torch.compile(gaussian_smooth, backend="eager")
    signal = torch.randn(4, 128)
    fast = smooth(signal)
    fast = smooth(signal + 1.0)
    reference = smooth(signal.double())
    print("max abs diff vs float64:", (fast.double() - 1.0 - reference).abs().max().item())


if __name__ == "__main__":
    main()
