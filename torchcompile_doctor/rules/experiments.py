"""Verified fixes (`--try-fixes`): which experiments a report calls for, and what each one measured.

An experiment is a change that needs no edit of the user's code — a torch._dynamo.config setting or a
torch.compile keyword forced on every call — taken from the finding's rule. `pipeline.try_fixes` re-runs the
target once per distinct experiment; these pure functions plan the runs and put the measured
before/after figures on each finding's fix. Nothing here is assumed: a fix shown as verified was
measured in this run, and one that made things worse says so.
"""

from __future__ import annotations

import json
from dataclasses import replace

from torchcompile_doctor.model.findings import RunFigures, Verification
from torchcompile_doctor.model.report import Finding, Report
from torchcompile_doctor.rules import compile_experiments


def describe(experiment: dict) -> str:
    """`torch._dynamo.config.capture_scalar_outputs = True`, `torch.compile(..., dynamic=True)`."""
    parts = []
    for key, value in (experiment.get("config") or {}).items():
        if key in ("reorderable_logging_functions", "ignore_logging_functions"):
            names = ", ".join(name.rpartition(":")[2] for name in value)  # `pkg:` only says what to import first
            parts.append(f"torch._dynamo.config.{key}.update({{{names}}})")
        else:
            parts.append(f"torch._dynamo.config.{key} = {value!r}")
    if experiment.get("mark_dynamic"):
        mark = experiment["mark_dynamic"]
        parts.append(
            f"torch._dynamo.mark_dynamic({mark['variable']}, {mark['dim']}) before each call of `{mark['function']}`"
        )
    if experiment.get("compile"):
        kwargs = ", ".join(f"{k}={v!r}" for k, v in experiment["compile"].items())
        parts.append(f"torch.compile(..., {kwargs})")
    parts += compile_experiments.describe_parts(experiment)
    return "; ".join(parts)


def experiment_key(experiment: dict) -> str:
    return json.dumps(experiment, sort_keys=True)


def plan(report: Report) -> list[dict]:
    """The distinct experiments the report's findings suggest, most harmful finding first."""
    seen: dict[str, dict] = {}
    for finding in report.findings:
        experiment = finding.fix.experiment if finding.fix else None
        if experiment and experiment_key(experiment) not in seen:
            seen[experiment_key(experiment)] = experiment
    return list(seen.values())


def figures(report: Report) -> RunFigures:
    summary = report.summary
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


def attach(report: Report, results: dict[str, Report | str | tuple[Report, Report]]) -> Report:
    """Put each experiment's measured effect on the fixes that suggested it.

    `results` maps experiment_key -> the report of the re-run (or the reports of its two runs, before and
    after, for a fix measured between two fresh runs), or an error message when it could not run.
    """
    before = figures(report)
    findings = []
    for finding in report.findings:
        experiment = finding.fix.experiment if finding.fix else None
        result = results.get(experiment_key(experiment)) if experiment else None
        if result is None or experiment is None or finding.fix is None:
            findings.append(finding)
            continue
        if isinstance(result, str):
            verified = Verification(describe(experiment), before, None, ok=False, effect="not measured", error=result)
        else:
            baseline, result = result if isinstance(result, tuple) else (None, result)  # (first run, second run)
            start = figures(baseline) if baseline is not None else before
            ok = result.target_succeeded
            after = figures(result)
            if compile_experiments.is_compile_time(experiment):
                effect = compile_experiments.effect(start, after, ok)
            else:
                effect = _effect(finding, start, after, result, ok)
            verified = Verification(describe(experiment), start, after, ok=ok, effect=effect)
        findings.append(replace(finding, fix=replace(finding.fix, verified=verified)))
    return replace(report, findings=tuple(findings))
