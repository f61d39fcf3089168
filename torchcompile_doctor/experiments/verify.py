"""What each experiment measured, put on the fixes that asked for it. Nothing here is assumed: a fix shown as
verified was measured in this run, and one that made things worse says so. Breaks and recompiles judge most
fixes; compile time judges those about compile time (regional compilation, a carried cache)."""

from __future__ import annotations

from dataclasses import replace

from torchcompile_doctor.experiments.experiment import Experiment, describe, is_compile_time, key
from torchcompile_doctor.model.findings import RunFigures, Verification
from torchcompile_doctor.model.report import Finding, Report

IMPROVED = 0.9  # compile time after / before at most this: the fix helped
WORSE = 1.1

# what a measured run gave: its report, the reports of its two runs (before, after), or why it could not run
Measured = Report | tuple[Report, Report] | str


def figures(report: Report) -> RunFigures:
    summary = report.summary
    if summary.graphs is None or summary.compile_time_s is None:
        raise ValueError("a fix is measured on a capture: a text log holds no graph count or compile time")
    return RunFigures(
        graph_breaks=summary.graph_breaks,
        recompiles=summary.recompiles,
        graphs=summary.graphs,
        recompile_limit_hits=summary.recompile_limit_hits,
        compile_failures=summary.compile_failures,
        compile_time_s=round(summary.compile_time_s, 3),
    )


def _problems(figures: RunFigures) -> tuple[int, ...]:
    return (figures.graph_breaks, figures.recompiles, figures.recompile_limit_hits, figures.compile_failures)


def _effect(finding: Finding, before: RunFigures, after: RunFigures, after_report: Report, ok: bool) -> str:
    if not ok:
        return "broke the run"
    gone = all(f.fingerprint != finding.fingerprint for f in after_report.findings)
    pairs = list(zip(_problems(after), _problems(before), strict=True))
    worse = any(now > was for now, was in pairs)
    better = any(now < was for now, was in pairs)
    if gone and not worse:
        return "fixed"
    if worse and not better:
        return "worse"
    if better or gone:
        return "mixed" if worse else "improved"
    return "no effect"


def compile_time_effect(before: RunFigures, after: RunFigures, ok: bool) -> str:
    """improved / no effect / worse, by compile seconds."""
    if not ok:
        return "broke the run"
    was, now = before.compile_time_s or 0.0, after.compile_time_s or 0.0
    if was and now <= was * IMPROVED:
        return "improved"
    if was and now >= was * WORSE:
        return "worse"
    return "no effect"


def _verification(finding: Finding, experiment: Experiment, result: Measured, before: RunFigures) -> Verification:
    if isinstance(result, str):
        return Verification(describe(experiment), before, None, ok=False, effect="not measured", error=result)
    baseline, after_report = result if isinstance(result, tuple) else (None, result)  # (first run, second run)
    start = figures(baseline) if baseline is not None else before
    ok = after_report.target_succeeded
    after = figures(after_report)
    if is_compile_time(experiment):
        effect = compile_time_effect(start, after, ok)
    else:
        effect = _effect(finding, start, after, after_report, ok)
    return Verification(describe(experiment), start, after, ok=ok, effect=effect)


def attach(report: Report, results: dict[str, Measured]) -> Report:
    """Put each experiment's measured effect on the fixes that suggested it. `results` maps an experiment's key
    (experiment.key) to what its run gave."""
    before = figures(report)
    findings = []
    for finding in report.findings:
        experiment = finding.fix.experiment if finding.fix else None
        result = results.get(key(experiment)) if experiment is not None else None
        if result is None or experiment is None or finding.fix is None:
            findings.append(finding)
            continue
        verified = _verification(finding, experiment, result, before)
        findings.append(replace(finding, fix=replace(finding.fix, verified=verified)))
    return replace(report, findings=tuple(findings))
