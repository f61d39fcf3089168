"""Old name of analysis/multirank.py, kept only while cli.py still imports it; import `analyze_ranks`
from `torchcompile_doctor.analysis`."""

from torchcompile_doctor.analysis.multirank import analyze_ranks

__all__ = ["analyze_ranks"]
