"""Ranking: severity first, then measured impact. Explainable: each finding keeps the figures
that placed it (`impact`), and its severity says which tier it is in.

Severities come from the catalogue, the only source of them; ranking applies one rule property: a
finding that is cold (traced once, causing no recompiles) drops to its rule's `cold_severity`.

Tiers (DESIGN.md): compile failure / recompile limit / fallback to eager / the target failing / ranks that
diverge (multi-rank runs) > graph break in a hot frame (traced more than once, or causing recompiles) > recompiles
> a single graph break > hints.
"""

from __future__ import annotations

from dataclasses import replace

from torchcompile_doctor.report import SEVERITIES, Finding, Kind
from torchcompile_doctor.rules import rule

# Within the critical tier, in this order.
_CRITICAL_ORDER = (
    Kind.TARGET_ERROR,
    Kind.RANK_DIVERGENCE,
    Kind.COMPILE_FAILURE,
    Kind.RECOMPILE_LIMIT,
    Kind.FRAME_SKIPPED,
)


def is_cold(finding: Finding) -> bool:
    """Traced once and causing no recompiles: a cost paid once."""
    return finding.impact.get("occurrences", 1) <= 1 and finding.impact.get("recompiles_caused", 0) <= 0


def severity_of(finding: Finding) -> str:
    """The finding's severity, lowered to its rule's cold severity when it is cold."""
    cold_severity = rule(finding.code).cold_severity
    if cold_severity is None or not is_cold(finding):
        return finding.severity
    return max(finding.severity, cold_severity, key=SEVERITIES.index)


def _key(finding: Finding) -> tuple:
    impact = finding.impact
    return (
        SEVERITIES.index(finding.severity),
        _CRITICAL_ORDER.index(finding.kind) if finding.kind in _CRITICAL_ORDER else len(_CRITICAL_ORDER),
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
