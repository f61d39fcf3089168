"""`doctor fix` from a plain run to a patch: the candidates the run's findings ask for, each measured in a trial copy
of the project, the helpful ones measured together, the best measured change as a patch; and writing it into the
project (`--apply`) only where no work of the user's can be lost."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace
from pathlib import Path

from torchcompile_doctor.errors import DoctorError
from torchcompile_doctor.events.model import EventLog
from torchcompile_doctor.fix.candidates import Candidate, Program, candidates, edited_files
from torchcompile_doctor.fix.result import fix_report
from torchcompile_doctor.fix.trials import (
    BUDGET_SPENT,
    PLAIN_REPEATS,
    WARM_REPEATS,
    Measure,
    Measured,
    TrialProgress,
    measure_candidates,
)
from torchcompile_doctor.model.fix import FixReport
from torchcompile_doctor.model.report import Report
from torchcompile_doctor.model.trial import Outcome, RunResult
from torchcompile_doctor.patches.project import uncommitted, write_change

Progress = Callable[[str], AbstractContextManager[object]]
BACKUP_SUFFIX = ".doctor-backup"  # beside a file outside git that --apply changed: the file as it was


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def find_fix(
    target: str,
    root: Path,
    report: Report,
    log: EventLog,
    before: RunResult,
    measure: Measure,
    *,
    jobs: int,
    budget_s: float,
    progress: Progress,
    trial_progress: TrialProgress | None = None,
    will_apply: bool = False,
    given: GivenPatch | None = None,
    warm: bool = False,
) -> FixReport:
    """Measure every candidate fix of the run and choose the patch (nothing is written here). With `will_apply`,
    a file the patch may change that holds uncommitted work stops it before anything is measured. With `given`
    (`--candidate PATCH`), that patch is the one candidate, measured as ours are. `warm`: `measure` forks the
    trials from a process that imported torch already, so they are timed against the plain run's repeats alone
    (fix/trials.py's WARM_REPEATS), not against the plain run, which ran alone."""
    program = Program.of(log, root, _read)
    built, refused = candidates(report, program) if given is None else ([], [])
    touched = edited_files([e for c in built for e in c.edits]) + sorted(given.changed if given else ())
    if will_apply:
        _refuse_uncommitted(root, touched)
    originals = {path: text for path in touched if (text := _read(path)) is not None}
    built = [c for c in built if all(e.path in originals for e in c.edits)]
    prepared = [(given.candidate, given.changed)] if given is not None else []
    if not before.succeeded:
        built, prepared = [], []
    measured = None
    if built or prepared:
        told = f"measuring {len(built)} candidate fix(es), {jobs} at a time"
        with progress(told) if trial_progress is None else nullcontext():  # a progress bar says it better
            measured = measure_candidates(
                built,
                root,
                originals,
                before,
                measure,
                jobs=jobs,
                budget_s=budget_s,
                progress=trial_progress,
                prepared=prepared,
                repeats=WARM_REPEATS if warm else PLAIN_REPEATS,
                timed_by_repeats=warm,
            )
    notes = _notes(before, measured, budget_s, nothing_to_do=not built and not refused and not prepared)
    result = fix_report(target, root, before, measured, refused, notes)
    return replace(result, originals={p: originals[p] for p in result.changed})


@dataclass(frozen=True)
class GivenPatch:
    """A patch of a person's or an agent's (`--candidate PATCH`), applied in memory: each file's new text."""

    name: str  # the patch file's name, as the report shows it
    changed: Mapping[Path, str]

    @property
    def candidate(self) -> Candidate:
        return Candidate(f"the patch {self.name}", (), (), (), False)


def _notes(before: RunResult, measured: Measured | None, budget_s: float, *, nothing_to_do: bool) -> list[str]:
    notes = []
    if not before.succeeded:
        notes.append("the program did not run to its end without the doctor's changes: its fixes were not measured")
    elif nothing_to_do:
        notes.append(
            "nothing to fix: no finding of this run asks for a change doctor fix can make (see doctor explain)"
        )
    if measured is None:
        return notes
    if measured.output_varies is not None:
        notes.append(
            f"the program prints other results on every run ({measured.output_varies} in a plain run again): the "
            "changes were judged by exit status and figures, not by what it printed"
        )
    trials = measured.trials
    unmeasured = sum(
        1 for t in trials if t.verdict.outcome == Outcome.NOT_MEASURED and t.verdict.detail == BUDGET_SPENT
    )
    if unmeasured:
        notes.append(f"the budget ({budget_s:g} s) was spent: {unmeasured} change(s) not measured; --budget gives more")
    return notes


def _refuse_uncommitted(root: Path, files: list[Path]) -> None:
    dirty = uncommitted(root, files)
    if dirty:
        raise DoctorError(
            f"{dirty[0].resolve().relative_to(root.resolve())} has changes git has not committed: commit or stash "
            "them, then run doctor fix --apply again (nothing was written)"
        )


def apply_fix(result: FixReport) -> FixReport:
    """Write the patch into the project. A file git shows changed (or untracked) is refused, nothing written;
    outside git each file is first copied beside itself (FILE.doctor-backup). Every file must still hold what
    was measured."""
    if not result.changed:
        return result
    root = Path(result.project)
    files = sorted(result.changed)
    _refuse_uncommitted(root, files)
    backups: list[str] = []
    if not (root / ".git").exists():
        for path in files:
            backup = path.with_name(path.name + BACKUP_SUFFIX)
            try:
                shutil.copy2(path, backup)
            except OSError as error:
                raise DoctorError(f"cannot keep a backup of {path}: {error.strerror}; nothing written") from None
            backups.append(backup.relative_to(root).as_posix())
    written = write_change(root, result.changed, originals=result.originals)
    return replace(
        result,
        applied=tuple(p.resolve().relative_to(root.resolve()).as_posix() for p in written),
        backups=tuple(backups),
    )
