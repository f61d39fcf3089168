"""What `doctor fix` found, as its renderers read it and its JSON carries it: the plain run's figures, every
candidate with what its trial did (or why it was not measured), and the patch with its measured effect."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from torchcompile_doctor.fix.candidates import Unbuildable
from torchcompile_doctor.fix.trials import Trial
from torchcompile_doctor.fix.verdict import NOT_BUILDABLE, RunResult
from torchcompile_doctor.model.findings import RunFigures
from torchcompile_doctor.model.json import json_field
from torchcompile_doctor.patches.project import unified_diff

FIX_SCHEMA_VERSION = 1


@dataclass(frozen=True)
class TrialRecord:
    change: str  # the change in words
    codes: tuple[str, ...]  # the findings' rule codes it answers
    findings: tuple[str, ...]  # their titles
    status: str  # helps, no effect, worse, crashed, output changed, not measured, not buildable
    detail: str | None  # what crashed or changed, what got worse, why it was not measured
    caution: str | None  # what it is known to do to some programs
    after: RunFigures | None  # the trial's figures (None: not measured)
    diff: str = ""  # the change as a unified diff of the user's files


@dataclass(frozen=True)
class PatchRecord:
    changes: tuple[str, ...]  # the changes it holds, in words
    after: RunFigures
    diff: str
    files: tuple[str, ...]  # relative to the project


@dataclass(frozen=True)
class FixReport:
    schema_version: int
    target: str
    project: str  # the folder the patch stays within
    before: RunFigures
    before_succeeded: bool  # the plain run ended as a clean run does
    trials: tuple[TrialRecord, ...]
    patch: PatchRecord | None
    applied: tuple[str, ...] = ()  # files written by --apply (relative to the project)
    backups: tuple[str, ...] = ()  # copies kept of files outside git before writing them
    notes: tuple[str, ...] = ()
    # what a renderer needs and the JSON does not: the patch's new texts, by file
    changed: Mapping[Path, str] = field(default_factory=dict, metadata=json_field(skip=True))
    originals: Mapping[Path, str] = field(default_factory=dict, metadata=json_field(skip=True))  # as measured

    @property
    def found(self) -> bool:
        return self.patch is not None

    @property
    def failed(self) -> bool:
        """The program failed without any change of the doctor's (nothing could be measured against it)."""
        return not self.before_succeeded


def _record(trial: Trial, root: Path) -> TrialRecord:
    first = trial.candidates[0]
    return TrialRecord(
        change=trial.title,
        codes=tuple(dict.fromkeys(code for c in trial.candidates for code in c.codes)),
        findings=tuple(dict.fromkeys(title for c in trial.candidates for title in c.findings)),
        status=trial.verdict.status,
        detail=trial.verdict.detail,
        caution=first.caution,
        after=trial.result.figures if trial.result is not None else None,
        diff=unified_diff(root, trial.changed) if trial.changed else "",
    )


def fix_report(
    target: str,
    root: Path,
    before: RunResult,
    trials: Sequence[Trial],
    refused: Sequence[Unbuildable],
    patch: Trial | None,
    notes: Sequence[str] = (),
) -> FixReport:
    records = [_record(t, root) for t in trials]
    records += [TrialRecord(u.title, u.codes, (), NOT_BUILDABLE, u.reason, None, None) for u in refused]
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
        changed=dict(patch.changed) if patch is not None else {},
    )
