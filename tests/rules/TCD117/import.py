# triggers TCD117 at line 7
import torch


def fused_kernels_available():
    try:
        import apex_fused_layer_norm  # noqa: F401

        return True
    except ImportError:
        return False


def normalize(x):
    if fused_kernels_available():
        return x
    return torch.nn.functional.layer_norm(x, x.shape[-1:])


f = torch.compile(normalize, backend="eager")
f(torch.ones(2, 4))
