"""Analysis stage: EventLog -> Report (grouping, GB ids, recompile classes, ranking, rules)."""

from torchcompile_doctor.analysis.analyze import AnalysisContext, RunOutcome, analyze

__all__ = ["AnalysisContext", "RunOutcome", "analyze"]
