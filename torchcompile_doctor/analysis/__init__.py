"""Analysis stage: EventLog -> Report. The index (index.py) is built once from the log; the detectors
(detectors/) turn it into findings; analyze.py suppresses, ranks and summarizes; multirank.py merges the
reports of several ranks."""

from torchcompile_doctor.analysis.analyze import AnalysisContext, RunOutcome, analyze
from torchcompile_doctor.analysis.multirank import analyze_ranks

__all__ = ["AnalysisContext", "RunOutcome", "analyze", "analyze_ranks"]
