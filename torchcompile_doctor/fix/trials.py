"""Measuring candidate fixes: each candidate's edits written into a trial copy of the project and the program run
there under the doctor (side by side, `jobs` at a time, within the budget), then the ones that helped written
together and measured once more. Only what was measured here ever reaches the patch. How the program is run is
the pipeline's: it hands `measure` (run the target inside a copy of the project, with the time it may take)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from torchcompile_doctor.errors import DoctorError
from torchcompile_doctor.fix.candidates import Candidate, FileEdit
from torchcompile_doctor.fix.judge import (
    HELPS,
    NOT_BUILDABLE,
    NOT_MEASURED,
    OUTPUT_CHANGED,
    RunResult,
    Verdict,
    changed_output,
    judge,
    problem_count,
    removed,
)
from torchcompile_doctor.patches.edits import EditError, edit_source
from torchcompile_doctor.patches.project import trial_copy

Measure = Callable[[Path, float], RunResult]  # run the target in this copy of the project, within these seconds
MIN_TRIAL_S = 60.0  # a trial may take this long at least, or this many times the plain run
TRIAL_WALL_FACTOR = 4.0
BUDGET_SPENT = "the budget was spent"


@dataclass(frozen=True)
class Trial:
    """One change (a candidate, or the helpful ones together) and what it did."""

    title: str
    candidates: tuple[Candidate, ...]
    changed: Mapping[Path, str]  # file -> its text with the change
    verdict: Verdict
    result: RunResult | None = None  # None: not measured (why: the verdict's detail)

    @property
    def helps(self) -> bool:
        return self.verdict.status == HELPS


def changed_texts(edits: Sequence[FileEdit], originals: Mapping[Path, str]) -> dict[Path, str]:
    """Each edited file's new text (raises EditError when an edit has no place or two collide)."""
    by_file: dict[Path, list[FileEdit]] = {}
    for edit in edits:
        by_file.setdefault(edit.path, []).append(edit)
    return {path: edit_source(originals[path], [e.edit for e in made]) for path, made in by_file.items()}


class _Clock:
    def __init__(self, budget_s: float, plain_run_s: float) -> None:
        self.deadline = time.monotonic() + budget_s
        self.per_trial_s = max(MIN_TRIAL_S, TRIAL_WALL_FACTOR * plain_run_s)

    def allowance(self) -> float:
        return min(self.per_trial_s, self.deadline - time.monotonic())


@dataclass(frozen=True)
class Measured:
    """Every candidate's trial, the helpful ones' together (None: fewer than two helped), and, when a plain run
    printed other results than the first, that line (the printed results then do not judge a change)."""

    trials: list[Trial]
    combined: Trial | None
    output_varies: str | None = None


def _measure_one(
    title: str,
    chosen: tuple[Candidate, ...],
    root: Path,
    originals: Mapping[Path, str],
    before: RunResult,
    measure: Measure,
    clock: _Clock,
    compare_output: bool = True,
) -> Trial:
    try:
        changed = changed_texts([e for c in chosen for e in c.edits], originals)
    except EditError as error:
        return Trial(title, chosen, {}, Verdict(NOT_BUILDABLE, str(error)))
    allowance = clock.allowance()
    if allowance <= 1.0:
        return Trial(title, chosen, changed, Verdict(NOT_MEASURED, BUDGET_SPENT))
    try:
        with trial_copy(root, changed) as copy:
            result = measure(copy, allowance)
    except DoctorError as error:
        return Trial(title, chosen, changed, Verdict(NOT_MEASURED, str(error)))
    by_compile_time = all(c.by_compile_time for c in chosen)
    return Trial(title, chosen, changed, judge(before, result, by_compile_time, compare_output), result)


def _output_varies(root: Path, before: RunResult, measure: Measure, clock: _Clock) -> str | None:
    """Run the program once more without any change: the printed line that differs from the first run, if any."""
    allowance = clock.allowance()
    if allowance <= 1.0:
        return None
    try:
        with trial_copy(root, {}) as copy:
            again = measure(copy, allowance)
    except DoctorError:
        return None
    return changed_output(before.output, again.output) if again.exit_code == before.exit_code else None


def measure_candidates(
    candidates: Sequence[Candidate],
    root: Path,
    originals: Mapping[Path, str],
    before: RunResult,
    measure: Measure,
    *,
    jobs: int,
    budget_s: float,
) -> Measured:
    """Each candidate alone, then the helpful ones together (one that helped alone is its own patch). When a
    change printed other results, the program runs once more unchanged: if that run differs too, its printed
    results vary by themselves and no longer judge the changes (exit status and figures still do)."""
    clock = _Clock(budget_s, before.wall_s)

    def one(candidate: Candidate) -> Trial:
        return _measure_one(candidate.title, (candidate,), root, originals, before, measure, clock)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        trials = list(pool.map(one, candidates))
    varies = None
    if any(t.verdict.status == OUTPUT_CHANGED for t in trials):  # the change, or a program that varies by itself?
        varies = _output_varies(root, before, measure, clock)
    if varies is not None:
        trials = [
            replace(t, verdict=judge(before, t.result, all(c.by_compile_time for c in t.candidates), False))
            if t.verdict.status == OUTPUT_CHANGED and t.result is not None
            else t
            for t in trials
        ]
    helpful = tuple(t.candidates[0] for t in _removing_more(trials, before))
    chosen = _combinable(helpful, originals) if len(helpful) >= 2 else ()
    if len(chosen) < 2:
        return Measured(trials, None, varies)
    title = " + ".join(c.title for c in chosen)
    combined = _measure_one(title, chosen, root, originals, before, measure, clock, compare_output=varies is None)
    return Measured(trials, combined, varies)


def _score(trial: Trial) -> tuple[int, float]:
    """Fewer problems left first, then less compile time."""
    assert trial.result is not None
    return problem_count(trial.result), trial.result.figures.compile_time_s or 0.0


def _removing_more(trials: Sequence[Trial], before: RunResult) -> list[Trial]:
    """The helpful trials, best first, without a change whose removed problems the better ones remove already
    (`mark_dynamic` at the call beside `dynamic=True` on the compile, or the `.item()` rewrite beside
    `capture_scalar_outputs`): the patch would carry both for nothing. Of equals, the smaller change goes first;
    a change judged by compile time alone (regional compilation) removes no problem and stays."""
    ranked = sorted(
        (t for t in trials if t.helps and t.result is not None),
        key=lambda t: (_score(t), len(t.candidates[0].edits)),
    )
    covered: dict[str, int] = {}
    kept = []
    for trial in ranked:
        assert trial.result is not None
        gone = removed(before, trial.result)
        if gone and all(count <= covered.get(key, 0) for key, count in gone.items()):
            continue
        for key, count in gone.items():
            covered[key] = max(count, covered.get(key, 0))
        kept.append(trial)
    return kept


def _combinable(helpful: Sequence[Candidate], originals: Mapping[Path, str]) -> tuple[Candidate, ...]:
    """The helpful candidates whose edits can be made together, in the order given."""
    chosen: list[Candidate] = []
    for candidate in helpful:
        try:
            changed_texts([e for c in (*chosen, candidate) for e in c.edits], originals)
        except EditError:
            continue
        chosen.append(candidate)
    return tuple(chosen)


def best(trials: Sequence[Trial], combined: Trial | None) -> Trial | None:
    """The patch: the helpful ones together when they leave fewer problems than the best one alone, else the best
    one (of equals, the smaller change)."""
    helpful = [t for t in trials if t.helps and t.result is not None]
    if not helpful:
        return None
    alone = min(helpful, key=lambda t: (_score(t), sum(len(c.edits) for c in t.candidates)))
    if combined is not None and combined.helps and _score(combined)[0] < _score(alone)[0]:
        return combined
    return alone
