"""Which experiments a report calls for: the distinct experiments its findings' fixes suggest, most harmful
finding first (the report's rank order)."""

from __future__ import annotations

from torchcompile_doctor.model.experiment import Experiment, key
from torchcompile_doctor.model.report import Report


def plan(report: Report) -> list[Experiment]:
    seen: dict[str, Experiment] = {}
    for finding in report.findings:
        experiment = finding.fix.experiment if finding.fix else None
        if experiment is not None and key(experiment) not in seen:
            seen[key(experiment)] = experiment
    return list(seen.values())
