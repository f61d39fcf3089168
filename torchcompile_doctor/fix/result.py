"""The fix report (model/fix.py) made from the trials: each trial's figures, diff and verdict, the patch, the plain
run's noise, and why each helpful change the patch leaves out stayed out."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from torchcompile_doctor.fix.candidates import Unbuildable
from torchcompile_doctor.fix.trials import Measured, Trial
from torchcompile_doctor.model.fix import FIX_SCHEMA_VERSION, FixReport, PatchRecord, ProblemChange, TrialRecord
from torchcompile_doctor.model.trial import Noise, Outcome, RunResult
from torchcompile_doctor.patches.project import unified_diff


def by_finding(before: RunResult, after: RunResult | None) -> tuple[ProblemChange, ...]:
    """Each finding's problems before → after, the plain run's findings first, then those the change brought."""
    if after is None:
        return ()
    keys = [*before.problems, *(key for key in after.problems if key not in before.problems)]
    return tuple(ProblemChange(key, before.problems.get(key, 0), after.problems.get(key, 0)) for key in keys)


def _record(trial: Trial, root: Path, before: RunResult) -> TrialRecord:
    cautions = [c.caution for c in trial.candidates if c.caution]
    return TrialRecord(
        change=trial.title,
        codes=tuple(dict.fromkeys(code for c in trial.candidates for code in c.codes)),
        findings=tuple(dict.fromkeys(title for c in trial.candidates for title in c.findings)),
        status=str(trial.verdict.outcome),
        detail=trial.verdict.detail,
        caution="; ".join(dict.fromkeys(cautions)) or None,
        after=trial.result.figures if trial.result is not None else None,
        diff=unified_diff(root, trial.changed) if trial.changed else "",
        label=trial.verdict.label,
        by_finding=by_finding(before, trial.result),
    )


def fix_report(
    target: str,
    root: Path,
    before: RunResult,
    measured: Measured | None,
    refused: Sequence[Unbuildable],
    notes: Sequence[str] = (),
) -> FixReport:
    trials = ([*measured.trials, measured.combined] if measured.combined else measured.trials) if measured else []
    records = [_record(t, root, before) for t in trials]
    records += [TrialRecord(u.title, u.codes, (), str(Outcome.NOT_BUILDABLE), u.reason, None, None) for u in refused]
    patch = measured.patch if measured else None
    patch_record = None
    if patch is not None and patch.result is not None:
        files = tuple(sorted(p.resolve().relative_to(root.resolve()).as_posix() for p in patch.changed))
        patch_record = PatchRecord(
            tuple(c.title for c in patch.candidates), patch.result.figures, unified_diff(root, patch.changed), files
        )
    return FixReport(
        schema_version=FIX_SCHEMA_VERSION,
        target=target,
        project=str(root),
        before=before.figures,
        before_succeeded=before.succeeded,
        trials=tuple(records),
        patch=patch_record,
        notes=tuple(notes),
        left_out=measured.left_out if measured else (),
        noise=measured.noise if measured else Noise.of([before]),
        changed=dict(patch.changed) if patch is not None else {},
    )
