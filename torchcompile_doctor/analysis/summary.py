"""The summary line of a report, one way for one process and for several ranks: counts of unique
findings (breaks, limit hits, fallbacks) from the findings, measured figures from the log (or, across
ranks, the worst rank's)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from torchcompile_doctor.events.model import EventLog
from torchcompile_doctor.model.report import Finding, Kind, Summary


@dataclass(frozen=True)
class Measured:
    """What a summary takes from the run rather than from its findings."""

    graphs: int
    graph_break_records: int
    recompiles: int
    compile_failures: int
    compile_time_s: float

    @classmethod
    def of_log(cls, log: EventLog, findings: Iterable[Finding]) -> Measured:
        return cls(
            graphs=len({g.compile_id for g in log.output_graphs}),
            graph_break_records=len(log.graph_breaks),
            recompiles=len(log.recompiles),
            compile_failures=sum(f.count for f in findings if f.kind == Kind.COMPILE_FAILURE),
            compile_time_s=sum(m.compile_time_s for m in log.metrics),
        )

    @classmethod
    def worst_of(cls, summaries: Iterable[Summary]) -> Measured:
        """Each figure of the worst rank: ranks run side by side, so the worst one sets the pace."""
        summaries = list(summaries)
        return cls(**{name: max(getattr(s, name) for s in summaries) for name in cls.__dataclass_fields__})


def frames_run_eagerly(finding: Finding) -> int:
    """How many frames a fallback finding stands for: each frame its break made torch skip (at least
    one), or the one function a recompile-limit hit sends to eager; 0 for other findings."""
    if not Kind(finding.kind).is_fallback:
        return 0
    return max(1, len(finding.skipped_frames))


def summarize(findings: Iterable[Finding], measured: Measured) -> Summary:
    findings = list(findings)
    kinds = [Kind(f.kind) for f in findings]
    return Summary(
        graphs=measured.graphs,
        graph_breaks=sum(1 for kind in kinds if kind.is_break),
        graph_break_records=measured.graph_break_records,
        recompiles=measured.recompiles,
        recompile_limit_hits=sum(1 for kind in kinds if kind == Kind.RECOMPILE_LIMIT),
        compile_failures=measured.compile_failures,
        fallbacks_to_eager=sum(map(frames_run_eagerly, findings)),
        compile_time_s=measured.compile_time_s,
    )
