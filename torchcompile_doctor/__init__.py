"""torchcompile-doctor: explains what torch.compile did to a program, and what to change."""

__version__ = "0.1.0"
