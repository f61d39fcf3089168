"""The CI gate (`doctor check`): which findings fail it and why. Pure: Report in, Report out.

Findings in the baseline are known and never fail; every criterion looks only at the others, so
`--max-graph-breaks 2` with a baseline allows two *new* breaks.
"""

from __future__ import annotations

import fnmatch
from dataclasses import replace
from typing import Any

from torchcompile_doctor.model.findings import compile_ids_of, impact_figures, torch_text_of
from torchcompile_doctor.model.gate import BaselineSummary, GateCriteria, GateFailure, GateResult
from torchcompile_doctor.model.report import SEVERITIES, Finding, Kind, Report, TargetStatus, target_ending
from torchcompile_doctor.rules import rule

# what --fullgraph fails on: what torch.compile(fullgraph=True) would raise for
_FULLGRAPH_KINDS = (Kind.GRAPH_BREAK, Kind.FRAME_SKIPPED, Kind.COMPILE_FAILURE)


def select_findings(report: Report, select: tuple[str, ...], ignore: tuple[str, ...]) -> Report:
    """Keep the findings whose code starts with a `select` entry (all when empty) and none of `ignore`."""
    if not select and not ignore:
        return report

    def wanted(finding: Finding) -> bool:
        chosen = not select or any(fnmatch.fnmatch(finding.code, f"{prefix}*") for prefix in select)
        return chosen and not any(fnmatch.fnmatch(finding.code, f"{prefix}*") for prefix in ignore)

    kept = tuple(f for f in report.findings if wanted(f))
    hidden = len(report.findings) - len(kept)
    notes = report.notes + ((f"{hidden} finding(s) left out by select/ignore.",) if hidden else ())
    return replace(report, findings=kept, notes=notes)


def _recompiles(finding: Finding) -> int:
    recompiles = impact_figures(finding.impact).recompiles
    return int(recompiles if recompiles is not None else finding.count)


def _fullgraph_says(findings: list[Finding]) -> str | None:
    """What torch.compile(fullgraph=True) would have raised: the first break in compile order."""
    breaks = [f for f in findings if f.kind in _FULLGRAPH_KINDS]
    if not breaks:
        return None

    def first_compile(finding: Finding) -> tuple[Any, ...]:
        ids = compile_ids_of(finding.evidence) or ["~"]
        return (min(str(i) for i in ids), finding.rank)

    first = min(breaks, key=first_compile)
    where = first.user_frame or first.location
    place = f" at {where.where}" if where else ""
    explanation = (first.torch_says or "").strip().splitlines()
    if first.kind == Kind.COMPILE_FAILURE or not first.gb_type:
        text = (torch_text_of(first.evidence) or first.title).strip().splitlines()[0]
        return f"torch.compile(fullgraph=True) would raise{place}: {text}"
    detail = f" ({explanation[0]})" if explanation else ""
    return f"torch.compile(fullgraph=True) would raise Unsupported{place}: {first.gb_type}{detail}"


def _is_preview(finding: Finding) -> bool:
    try:
        return rule(finding.code).status == "preview"
    except KeyError:  # a finding of no catalogue rule
        return False


def _own_reasons(finding: Finding, criteria: GateCriteria) -> list[str]:
    """Why one finding fails `criteria` by itself (the count limits are the run's, see _failing)."""
    reasons = []
    if criteria.fullgraph and finding.kind in _FULLGRAPH_KINDS:
        what = "a compile failure" if finding.kind == Kind.COMPILE_FAILURE else "a graph break"
        reasons.append(f"{what} (--fullgraph)")
    if finding.kind == Kind.NOTHING_COMPILED:  # whatever the criteria: a run that compiled nothing proves nothing
        reasons.append("nothing was compiled")
    if criteria.by_default and _is_preview(finding):
        return reasons  # a preview rule is still being tuned: it fails only a gate that asks for it
    if criteria.fail_on and SEVERITIES.index(finding.severity) <= SEVERITIES.index(criteria.fail_on):
        reasons.append(f"severity {finding.severity} (--fail-on {criteria.fail_on})")
    return reasons


def _failing(new: list[Finding], criteria: GateCriteria) -> tuple[dict[str, list[str]], list[str]]:
    """Why each new finding fails `criteria` (fingerprint -> reasons), and the run-wide violations."""
    reasons: dict[str, list[str]] = {f.fingerprint: _own_reasons(f, criteria) for f in new}
    violations: list[str] = []
    breaks = [f for f in new if Kind(f.kind).is_break]
    if criteria.max_graph_breaks is not None and len(breaks) > criteria.max_graph_breaks:
        violations.append(f"{len(breaks)} graph breaks > --max-graph-breaks {criteria.max_graph_breaks}")
        for finding in breaks:
            reasons[finding.fingerprint].append(
                f"one of {len(breaks)} graph breaks (--max-graph-breaks {criteria.max_graph_breaks})"
            )
    recompiling = [f for f in new if f.kind == Kind.RECOMPILE]
    recompiles = sum(map(_recompiles, recompiling))
    if criteria.max_recompiles is not None and recompiles > criteria.max_recompiles:
        violations.append(f"{recompiles} recompiles > --max-recompiles {criteria.max_recompiles}")
        for finding in recompiling:
            reasons[finding.fingerprint].append(
                f"{_recompiles(finding)} of {recompiles} recompiles (--max-recompiles {criteria.max_recompiles})"
            )
    return reasons, violations


def _unfinished_run(report: Report) -> list[str]:
    """A run that failed or was stopped fails the gate, whatever its findings: what it did not reach was never
    checked (the exit code is still 3, the target's failure). A log that does not say how the run ended does not
    fail it."""
    if report.target_status == TargetStatus.UNKNOWN or report.target_succeeded:
        return []
    code = report.target_exit_code
    how = target_ending(report.target_status, code) or (
        f"{report.target_status}, exit code {code}" if code is not None else report.target_status
    )
    return [f"the run did not finish ({how}): what it did not reach was never checked"]


def _against_baseline(report: Report, known: dict[str, dict[str, Any]], baseline: BaselineSummary) -> BaselineSummary:
    """The baseline's summary completed with how many findings it knows, how many are new, which got worse."""
    worse = [f for f in report.findings if f.fingerprint in known and f.count > known[f.fingerprint]["count"]]
    new = sum(1 for f in report.findings if f.fingerprint not in known)
    return replace(
        baseline,
        known=len(report.findings) - new,
        new=new,
        worse=tuple(
            f"{f.code} {where.where if (where := f.user_frame or f.location) else '-'}: "
            f"{known[f.fingerprint]['count']} → {f.count}"
            for f in worse
        ),
    )


def apply_gate(
    report: Report,
    criteria: GateCriteria,
    known: dict[str, dict[str, Any]] | None = None,
    baseline: BaselineSummary | None = None,
) -> Report:
    """Mark the findings that fail `criteria`, put them first, and record the verdict on the report.

    `known`: fingerprint -> baseline entry ({count, ...}); `baseline`: what to say about the baseline."""
    known = known or {}
    new = [f for f in report.findings if f.fingerprint not in known]
    reasons, violations = _failing(new, criteria)
    failures = tuple(GateFailure(fp, "; ".join(why)) for fp, why in reasons.items() if why)
    failing = {fp for fp, _ in failures}
    ordered = [f for f in report.findings if f.fingerprint in failing] + [
        f for f in report.findings if f.fingerprint not in failing
    ]
    violations += _unfinished_run(report)
    notes = list(report.notes)
    if criteria.fullgraph and (said := _fullgraph_says(list(report.findings))):
        notes.append(said)
    if baseline is not None:
        baseline = _against_baseline(report, known, baseline)
        notes += [f"worse than the baseline: {line}" for line in baseline.worse]
        if baseline.note:
            notes.append(baseline.note)
    gate = GateResult(
        passed=not failures and not violations,
        criteria=criteria.describe() + ((f"--baseline {baseline.path}",) if baseline else ()),
        failures=failures,
        violations=tuple(violations),
        baseline=baseline,
    )
    renumbered = tuple(replace(f, rank=i) for i, f in enumerate(ordered, start=1))
    return replace(report, findings=renumbered, notes=tuple(notes), gate=gate)
