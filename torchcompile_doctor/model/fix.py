"""What `doctor fix` found, as its renderers read it and its JSON carries it (schema version FIX_SCHEMA_VERSION):
the plain run's figures, every candidate with what its trial did (or why it was not measured), and the patch with
its measured effect (before → after of breaks, recompiles, compile time and steady-state time), the plain run's
noise the decisions were made against, and why each helpful change the patch leaves out stayed out. Built by
fix/result.py."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from torchcompile_doctor.model.findings import RunFigures
from torchcompile_doctor.model.json import json_field
from torchcompile_doctor.model.trial import LeftOut, Noise

FIX_SCHEMA_VERSION = 2  # 2: one vocabulary with --try-fixes (fixed, improved, ... for "helps"), left_out, noise


@dataclass(frozen=True)
class ProblemChange:
    """One finding's problems (breaks, recompiles, fallbacks, failures) in the plain run and with the change."""

    finding: str  # its rule, file and function: `TCD104 train.py step`
    before: int
    after: int


@dataclass(frozen=True)
class TrialRecord:
    change: str  # the change in words
    codes: tuple[str, ...]  # the findings' rule codes it answers
    findings: tuple[str, ...]  # their titles
    status: str  # an Outcome (model/trial.py): fixed, improved, trade-off, no effect, worse, compiles less, ...
    detail: str | None  # what crashed or changed, what got worse, why it was not measured
    caution: str | None  # what it is known to do to some programs
    after: RunFigures | None  # the trial's figures (None: not measured)
    diff: str = ""  # the change as a unified diff of the user's files
    label: str | None = field(default=None, metadata=json_field(omit_none=True))  # `prints tensor(0.0064) for 0.0064`
    by_finding: tuple[ProblemChange, ...] = ()  # each finding's problems before → after (measured trials only)


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
    left_out: tuple[LeftOut, ...] = ()  # each helpful change the patch does not hold, and why
    noise: Noise | None = None  # the plain run's timings over its repeats: what a timing had to exceed to count
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
