"""torchcompile-doctor: explains what torch.compile did to a program, and what to change."""

__version__ = "0.1.0"

__all__ = ["__version__", "diagnose", "expect"]


def __getattr__(name: str) -> object:
    # The API is loaded on first use: `import torchcompile_doctor` (and the CLI) stay free of torch.
    if name in ("diagnose", "expect"):
        from torchcompile_doctor import api

        return getattr(api, name)
    raise AttributeError(f"module 'torchcompile_doctor' has no attribute {name!r}")
