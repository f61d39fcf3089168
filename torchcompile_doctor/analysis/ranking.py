"""Ranking: severity first, then measured impact. Explainable: each finding keeps the figures
that placed it (`impact`), and its severity says which tier it is in.

Tiers (DESIGN.md): compile failure / recompile limit / fallback to eager / the target failing / ranks that
diverge (multi-rank runs) > graph break in a hot frame (traced more than once, or causing recompiles) > recompiles
> a single graph break > hints.
"""

from __future__ import annotations

from dataclasses import replace

from torchcompile_doctor.report import SEVERITIES, Finding

_CRITICAL_KINDS = ("target_error", "rank_divergence", "compile_failure", "recompile_limit", "frame_skipped")


def severity_of(finding: Finding) -> str:
    if finding.kind in _CRITICAL_KINDS:
        return "critical"
    if finding.kind == "graph_break":
        hot = finding.impact.get("occurrences", 1) > 1 or finding.impact.get("recompiles_caused", 0) > 0
        return finding.severity if hot else _lower(finding.severity, "low")
    if finding.kind == "recompile":
        return "medium"
    return finding.severity


def _lower(severity: str, floor: str) -> str:
    return max(severity, floor, key=SEVERITIES.index)


def _key(finding: Finding) -> tuple:
    impact = finding.impact
    return (
        SEVERITIES.index(finding.severity),
        _CRITICAL_KINDS.index(finding.kind) if finding.kind in _CRITICAL_KINDS else len(_CRITICAL_KINDS),
        -impact.get("recompiles_caused", 0) - impact.get("recompiles", 0),
        -impact.get("compile_seconds", 0.0),
        -impact.get("occurrences", finding.count),
        finding.location.file if finding.location else "",
        finding.location.line if finding.location else 0,
        finding.code,
    )


def rank_findings(findings: list[Finding]) -> list[Finding]:
    tiered = [replace(f, severity=severity_of(f)) for f in findings]
    return [replace(f, rank=i) for i, f in enumerate(sorted(tiered, key=_key), start=1)]
