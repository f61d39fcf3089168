"""Analysis stage: EventLog -> Report. The index (index.py) is built once from the log; the detectors
(detectors/) turn it into findings; analyze.py suppresses, ranks and summarizes; multirank.py merges the
reports of several ranks."""

from torchcompile_doctor.analysis.analyze import AnalysisContext, analyze
from torchcompile_doctor.analysis.multirank import report_of_processes, report_of_ranks

__all__ = ["AnalysisContext", "analyze", "report_of_processes", "report_of_ranks"]
