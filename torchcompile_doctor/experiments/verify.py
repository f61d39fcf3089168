"""What each experiment measured, put on the fixes that asked for it, judged as `doctor fix` judges its trials (one
verdict, fix/judge.py; one vocabulary, model/trial.py's Outcome). Nothing here is assumed: a fix shown as verified
was measured in this run, and one that made things worse says so. A fix is `fixed` when its finding is gone and
the run is better; breaks and recompiles judge most fixes, compile time (beyond its noise) those about compile
time (regional compilation, a carried cache). What the program printed is not compared here: `explain` does not
keep the plain run's output (`doctor fix` does)."""

from __future__ import annotations

from dataclasses import replace

from torchcompile_doctor.fix.judge import decided_by_timing, judge, problems_by_finding
from torchcompile_doctor.model.experiment import Experiment, describe, is_compile_time, key
from torchcompile_doctor.model.findings import RunFigures, Verification
from torchcompile_doctor.model.report import Finding, Report
from torchcompile_doctor.model.trial import Outcome, RunResult, Verdict

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


def result_of(report: Report) -> RunResult:
    """A report's run as the judge reads it (its printed output not kept)."""
    return RunResult(
        figures=figures(report),
        fallbacks=report.summary.fallbacks_to_eager,
        succeeded=report.target_succeeded,
        exit_code=report.target_exit_code,
        output="",
        errors="",
        wall_s=0.0,
        problems=problems_by_finding(report),
    )


def _judged(
    experiment: Experiment, result: Report | tuple[Report, Report], plain: Report, code: str
) -> tuple[RunResult, RunResult, Verdict]:
    baseline, after_report = result if isinstance(result, tuple) else (plain, result)  # (first run, second run)
    before, after = result_of(baseline), result_of(after_report)
    verdict = judge(
        before, after, by_compile_time=is_compile_time(experiment), compare_output_too=False, aimed_at=(code,)
    )
    return before, after, verdict


def timing_decided(experiment: Experiment, result: Measured, plain: Report) -> bool:
    """Whether one timed run beyond the noise made the experiment's verdict (fix/judge.decided_by_timing): such
    an experiment is measured again before its verdict stands."""
    if isinstance(result, str):
        return False
    before, after, verdict = _judged(experiment, result, plain, "")
    return decided_by_timing(before, after, verdict)


def _verification(finding: Finding, experiment: Experiment, result: Measured, plain: Report) -> Verification:
    if isinstance(result, str):
        not_measured = str(Outcome.NOT_MEASURED)
        return Verification(describe(experiment), figures(plain), None, ok=False, effect=not_measured, error=result)
    before, after, verdict = _judged(experiment, result, plain, finding.code)
    after_report = result[1] if isinstance(result, tuple) else result
    outcome = verdict.outcome
    if verdict.helps and not is_compile_time(experiment):
        gone = all(f.fingerprint != finding.fingerprint for f in after_report.findings)
        outcome = Outcome.FIXED if gone else Outcome.IMPROVED
    return Verification(
        describe(experiment),
        before.figures,
        after.figures,
        ok=after_report.target_succeeded,
        effect=str(outcome),
        detail=verdict.detail,
    )


def attach(report: Report, results: dict[str, Measured]) -> Report:
    """Put each experiment's measured effect on the fixes that suggested it. `results` maps an experiment's key
    (model/experiment.key) to what its run gave."""
    findings = []
    for finding in report.findings:
        experiment = finding.fix.experiment if finding.fix else None
        result = results.get(key(experiment)) if experiment is not None else None
        if result is None or experiment is None or finding.fix is None:
            findings.append(finding)
            continue
        verified = _verification(finding, experiment, result, report)
        findings.append(replace(finding, fix=replace(finding.fix, verified=verified)))
    return replace(report, findings=tuple(findings))
