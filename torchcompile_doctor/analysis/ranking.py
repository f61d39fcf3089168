"""Ranking by measured cost. Explainable: each finding keeps the figures that placed it (`impact`), and
its severity says which band of cost it is in.

Order:
1. What makes the run other than it seems, always first, in `_BLOCKING` order: the target failed, ranks
   diverge, a compile failed, the recompile limit was hit. Their severity is the catalogue's (critical).
2. Everything else by severity band, then by cost within the band. For a finding with a measured
   compile cost (a graph break, a frame torch skipped, a recompile) the band follows from the cost, its
   share of the run's compile time, and for a fallback the size of what now runs eagerly at every call
   (the source lines of the skipped frames; the catalogue's `ranking` thresholds): the catalogue's severity is
   what the rule *can* reach, not what a cheap case gets, so a `<dictcomp>` fallback of 0.01 s is `low`
   while a data-dependent break costing half the compile is `high`. A rule the catalogue marks `info`
   (breaks made on purpose, notes) stays `info`. Findings without a compile cost (guards, hints) keep the
   catalogue's severity and follow the costed findings of their band.
3. Ties are broken by place and code, so one capture gives one order in every format, every time.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from torchcompile_doctor.model.findings import impact_figures
from torchcompile_doctor.model.report import SEVERITIES, Finding, Kind
from torchcompile_doctor.rules import ranking_params, rule

_BLOCKING = (
    Kind.TARGET_ERROR,
    Kind.RANK_DIVERGENCE,
    Kind.COMPILE_FAILURE,
    Kind.RECOMPILE_LIMIT,
)


def cost_seconds(finding: Finding) -> float | None:
    """The compile seconds the finding accounts for; None for a finding without a compile cost."""
    seconds = impact_figures(finding.impact).compile_seconds
    return float(seconds) if seconds is not None else None


def cost_share(finding: Finding, total_compile_seconds: float) -> float | None:
    """The finding's share of the run's compile time; None without a compile cost, and when the run's compile
    time is not known (a text log without its trace records none)."""
    seconds = cost_seconds(finding)
    if seconds is None or total_compile_seconds <= 0:
        return None
    return seconds / total_compile_seconds


def severity_of(finding: Finding, total_compile_seconds: float) -> str:
    """The catalogue's severity for what blocks the run, for info rules and for findings without a compile
    cost; otherwise the band of the finding's share of the compile time."""
    catalogued = rule(finding.code).severity
    share = cost_share(finding, total_compile_seconds)
    if not Kind(finding.kind).is_costed or catalogued == "info" or share is None:
        return catalogued
    limits = ranking_params()
    eager_lines = impact_figures(finding.impact).eager_lines or 0  # a fallback's cost is paid at every call
    if share >= limits["high_share"] or eager_lines >= limits["high_eager_lines"]:
        return "high"
    if share >= limits["medium_share"] or eager_lines >= limits["medium_eager_lines"]:
        return "medium"
    return "low"


def _key(finding: Finding) -> tuple[Any, ...]:
    figures = impact_figures(finding.impact)
    seconds = cost_seconds(finding)
    return (
        _BLOCKING.index(finding.kind) if finding.kind in _BLOCKING else len(_BLOCKING),
        SEVERITIES.index(finding.severity),
        seconds is None,  # a measured cost before an unmeasured one of the same band
        -(seconds or 0.0),
        -(figures.recompiles_caused or 0) - (figures.recompiles or 0),
        -(figures.occurrences if figures.occurrences is not None else finding.count),
        finding.location.file if finding.location else "",
        finding.location.line if finding.location else 0,
        finding.code,
        finding.title,
    )


def rank_findings(findings: list[Finding], total_compile_seconds: float) -> list[Finding]:
    """The findings in rank order, each with its severity band and its position (`rank`, from 1)."""
    banded = [replace(f, severity=severity_of(f, total_compile_seconds)) for f in findings]
    return [replace(f, rank=i) for i, f in enumerate(sorted(banded, key=_key), start=1)]
