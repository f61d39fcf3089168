"""The trial engine: each change written into a trial copy of the project and the program run there under the doctor
(side by side, `jobs` at a time, within the budget), the plain run repeated beside them to measure its noise, every
trial judged against the plain run (fix/judge.py), then the helpful ones written together and measured once more.
Only what was measured here ever reaches the patch.

Measured alike: the plain run and every trial compile into an empty inductor cache of their own (all cold; the
pipeline's `measure` sees to it). A trial may run until the budget is spent (no multiple of the plain run cuts off
a trial that is still improving); one cut short is reported with its partial figures. The same edit (the same
resulting file texts) is measured once. The most promising change goes first: the one whose findings count the
most problems. Every helpful change left out of the patch carries its reason (model/trial.py's LeftOut). How the
program is run is the pipeline's: it hands `measure` (run the target inside a copy of the project, with the
seconds it may take)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, Protocol, TypeVar

from torchcompile_doctor.errors import DoctorError
from torchcompile_doctor.fix.candidates import Candidate, FileEdit
from torchcompile_doctor.fix.judge import (
    compare_output,
    decided_by_timing,
    ended_alike,
    fastest_of,
    judge,
    problem_count,
    removed,
)
from torchcompile_doctor.model.trial import LeftOut, Noise, Outcome, RunResult, Verdict
from torchcompile_doctor.patches.edits import EditError, edit_source
from torchcompile_doctor.patches.project import trial_copy

Measure = Callable[[Path, float], RunResult]  # run the target in this copy of the project, within these seconds
PLAIN_REPEATS = 1  # the plain run once more beside the trials: two samples give its median and spread
WARM_REPEATS = 2  # trials forked warm are timed against warm repeats only: two give the median and spread
BUDGET_SPENT = "the budget was spent"
PLAIN_AGAIN = "the plain run again (its noise)"
T = TypeVar("T")


class TrialProgress(Protocol):
    """What the engine tells while it measures (the CLI: a progress bar on a TTY, a line per trial otherwise)."""

    def started(self, total: int) -> None: ...

    def running(self, title: str) -> None: ...

    def finished(self, done: int, total: int, line: str) -> None: ...


class QuietProgress:
    def started(self, total: int) -> None:
        pass

    def running(self, title: str) -> None:
        pass

    def finished(self, done: int, total: int, line: str) -> None:
        pass


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
        return self.verdict.helps and self.result is not None


def changed_texts(edits: Sequence[FileEdit], originals: Mapping[Path, str]) -> dict[Path, str]:
    """Each edited file's new text (raises EditError when an edit has no place or two collide)."""
    by_file: dict[Path, list[FileEdit]] = {}
    for edit in edits:
        by_file.setdefault(edit.path, []).append(edit)
    return {path: edit_source(originals[path], [e.edit for e in made]) for path, made in by_file.items()}


def edit_key(changed: Mapping[Path, str]) -> tuple[tuple[str, str], ...]:
    """One key per resulting project: two candidates that write the same texts are one trial."""
    return tuple(sorted((str(path), text) for path, text in changed.items()))


@dataclass(frozen=True)
class Job(Generic[T]):
    """One run the engine makes: its title, and the run itself given the seconds it may take (DoctorError: why
    it could not be made)."""

    title: str
    run: Callable[[float], T]


class TrialRunner(Generic[T]):
    """The one engine's scheduler, for `doctor fix`'s trials and `--try-fixes`' experiments alike: runs jobs
    `workers` at a time within the budget (a job that cannot start in time is not run: BUDGET_SPENT), and tells
    the progress of each as it starts and ends (`describe`: the line of a finished run). Thread-safe."""

    def __init__(self, budget_s: float, progress: TrialProgress, describe: Callable[[T, float], str]) -> None:
        self.deadline = time.monotonic() + budget_s
        self.progress, self.describe = progress, describe
        self.total, self.done = 0, 0
        self._lock = threading.Lock()

    def add(self, more: int) -> None:
        with self._lock:
            self.total += more
        self.progress.started(self.total)

    def run(self, job: Job[T]) -> T | str:
        """What the job gave, or why it was not run."""
        allowance = self.deadline - time.monotonic()
        result: T | str = BUDGET_SPENT
        started = time.monotonic()
        if allowance > 1.0:
            self.progress.running(job.title)
            try:
                result = job.run(allowance)
            except DoctorError as error:
                result = str(error)
        with self._lock:
            self.done += 1
            done = self.done
        line = result if isinstance(result, str) else self.describe(result, time.monotonic() - started)
        self.progress.finished(done, self.total, f"{job.title}: {line}")
        return result

    def run_all(self, jobs: Sequence[Job[T]], workers: int) -> list[T | str]:
        self.add(len(jobs))
        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            return list(pool.map(self.run, jobs))


def _in_copy(root: Path, measure: Measure, changed: Mapping[Path, str]) -> Callable[[float], RunResult]:
    """The program run in a trial copy of the project with the change written in it."""

    def run(seconds: float) -> RunResult:
        with trial_copy(root, changed) as copy:
            return measure(copy, seconds)

    return run


def _figures_line(before: RunResult, after: RunResult, took: float) -> str:
    """A finished run's line: its counts beside the plain run's, its compile time alone (the plain run ran alone, or
    cold where the program sets torch's variables: the timings it is judged against are the repeats', known once
    they are in)."""
    was, now = before.figures, after.figures
    cut = " (cut short: partial figures)" if after.timed_out else ""
    return (
        f"measured in {took:.1f} s{cut}: breaks {was.graph_breaks} → {now.graph_breaks}, recompiles "
        f"{was.recompiles} → {now.recompiles}, compile {now.compile_time_s:.2f} s"
    )


@dataclass(frozen=True)
class Measured:
    """Every candidate's trial, the helpful ones' together (None: fewer than two helped), the plain run's noise,
    the printed line that differed when the plain run again printed other results (the printed results then do not
    judge a change), the patch, and why each helpful change the patch leaves out stayed out."""

    trials: list[Trial]
    combined: Trial | None
    noise: Noise
    output_varies: str | None = None
    patch: Trial | None = None
    left_out: tuple[LeftOut, ...] = ()


def _promise(candidate: Candidate, before: RunResult) -> int:
    """How many of the plain run's problems the findings it answers count."""
    return sum(count for key, count in before.problems.items() if key.split(" ")[0] in candidate.codes)


def _judged(
    candidate_group: tuple[Candidate, ...], changed: Mapping[Path, str], measured: RunResult | str, context: _Judging
) -> Trial:
    title = " + ".join(c.title for c in candidate_group)
    if isinstance(measured, str):
        return Trial(title, candidate_group, changed, Verdict(Outcome.NOT_MEASURED, measured))
    verdict = judge(
        context.before,
        measured,
        noise=context.noise,
        by_compile_time=all(c.by_compile_time for c in candidate_group),
        compare_output_too=context.output_varies is None,
        aimed_at={code for c in candidate_group for code in c.codes},
        inherent_recompiles=any(c.inherent_recompiles for c in candidate_group),
    )
    return Trial(title, candidate_group, changed, verdict, measured)


@dataclass(frozen=True)
class _Judging:
    before: RunResult
    noise: Noise
    output_varies: str | None


def _plain_again(
    before: RunResult, repeats: Sequence[RunResult | str], timed_by_repeats: bool
) -> tuple[Noise, str | None]:
    """The noise of the plain run's timings, and the printed line a plain run again changed (None: the same).
    `timed_by_repeats`: the repeats alone are timed as the trials are, forked warm; the plain run, which ran alone,
    never joins them (when none ran to its end, no timing is compared: Noise.timed is False)."""
    alike = [r for r in repeats if isinstance(r, RunResult) and r.exit_code == before.exit_code and not r.timed_out]
    varies = next((d for r in alike if (d := compare_output(before.output, r.output).differs) is not None), None)
    return (Noise.of(alike, forked=True) if timed_by_repeats else Noise.of([before, *alike])), varies


def _built(
    candidates: Sequence[Candidate],
    originals: Mapping[Path, str],
    before: RunResult,
    prepared: Sequence[tuple[Candidate, Mapping[Path, str]]],
) -> tuple[list[tuple[Candidate, Mapping[Path, str]]], list[Trial]]:
    """The candidates whose edits make a project (and the changes given as made), most promising first, each
    distinct project once; and the trials of those that make none or repeat one."""
    ordered = sorted(candidates, key=lambda c: (-_promise(c, before), len(c.edits), c.title))
    unique: dict[tuple[tuple[str, str], ...], Candidate] = {}
    runnable: list[tuple[Candidate, Mapping[Path, str]]] = []
    settled = []
    made = [(c, {p: t for p, t in given.items()}) for c, given in prepared]
    for candidate in ordered:
        try:
            made.append((candidate, changed_texts(candidate.edits, originals)))
        except EditError as error:
            settled.append(Trial(candidate.title, (candidate,), {}, Verdict(Outcome.NOT_BUILDABLE, str(error))))
    for candidate, changed in made:
        twin = unique.setdefault(edit_key(changed), candidate)
        if twin is not candidate:
            same = Verdict(Outcome.NOT_MEASURED, f"the same edit as {twin.title}: measured once, there")
            settled.append(Trial(candidate.title, (candidate,), changed, same))
            continue
        runnable.append((candidate, changed))
    return runnable, settled


def measure_candidates(
    candidates: Sequence[Candidate],
    root: Path,
    originals: Mapping[Path, str],
    before: RunResult,
    measure: Measure,
    *,
    jobs: int,
    budget_s: float,
    progress: TrialProgress | None = None,
    repeats: int = PLAIN_REPEATS,
    prepared: Sequence[tuple[Candidate, Mapping[Path, str]]] = (),
    timed_by_repeats: bool = False,
) -> Measured:
    """Each candidate alone (and the plain run again, for its noise), then the helpful ones together; the patch
    is the best measured change. When the plain run again printed other results, the program's printed results
    vary by themselves and no longer judge the changes (exit status and figures still do). `prepared`: changes
    given as made (a patch of the user's: fix/given_patch.py), each with its files' new texts, measured first.
    `timed_by_repeats`: the trials' timings are judged against the plain run's repeats alone (they are run as the
    trials are, forked warm, where the plain run was not)."""
    runnable, settled = _built(candidates, originals, before, prepared)
    plain_runs = repeats if runnable else 0
    runner = TrialRunner[RunResult](
        budget_s, progress or QuietProgress(), lambda r, took: _figures_line(before, r, took)
    )
    work = [Job(PLAIN_AGAIN, _in_copy(root, measure, {})) for _ in range(plain_runs)]
    work += [Job(candidate.title, _in_copy(root, measure, changed)) for candidate, changed in runnable]
    results = runner.run_all(work, jobs)
    noise, varies = _plain_again(before, results[:plain_runs], timed_by_repeats)
    context = _Judging(before, noise, varies)
    trials = [
        _judged((c,), changed, r, context) for (c, changed), r in zip(runnable, results[plain_runs:], strict=True)
    ]
    place = _Place(root, measure)
    trials = _confirmed(trials, runner, context, place, jobs) + settled
    return _with_patch(trials, originals, runner, context, place)


@dataclass(frozen=True)
class _Place:
    """Where and how the combination is run: the project and the pipeline's measure."""

    root: Path
    measure: Measure


AGAIN = "again: one timed run decided it"


def _confirmed(
    trials: Sequence[Trial], runner: TrialRunner[RunResult], context: _Judging, place: _Place, jobs: int
) -> list[Trial]:
    """Each verdict that one timed run made (a trade-off, or slower alone) measured once more and judged on the
    change's timings at their least (judge.fastest_of): on a busy machine a run can be slow by itself, and a
    patch must not move with that."""
    doubtful = [t for t in trials if t.result is not None and decided_by_timing(context.before, t.result, t.verdict)]
    work = [Job(f"{t.title} ({AGAIN})", _in_copy(place.root, place.measure, t.changed)) for t in doubtful]
    again = dict(zip(map(id, doubtful), runner.run_all(work, jobs), strict=True)) if work else {}
    return [_rejudged(t, again[id(t)], context) if id(t) in again else t for t in trials]


def _rejudged(trial: Trial, again: RunResult | str, context: _Judging) -> Trial:
    """The trial judged on both its runs; as it was when the second did not end as the first (not run, cut short,
    other counts: then the two are not one change's timings)."""
    first = trial.result
    assert first is not None
    if isinstance(again, str) or not ended_alike(first, again):
        return trial
    return _judged(trial.candidates, trial.changed, fastest_of([first, again]), context)


def _rank(trial: Trial) -> tuple[int, int, str]:
    """Fewer problems left first, then the smaller change, then by name: the same problems give the same order on
    every run. Timings never rank: each is judged against the plain run's noise already (a trial slower beyond it
    is no help), and two helpful changes whose times differ within a busy machine's noise would swap places."""
    assert trial.result is not None
    return (problem_count(trial.result), sum(len(c.edits) for c in trial.candidates), trial.title)


def _without_duplicates(ranked: Sequence[Trial], before: RunResult) -> tuple[list[Trial], list[LeftOut]]:
    """The helpful trials, best first, without a change that a better one makes unneeded: another fix of the same
    finding's place (`mark_dynamic` at the call beside `dynamic=True` on the compile, a logging call guarded beside
    the logging switch), or, for changes whose places are not known, one whose removed problems the better ones
    remove already. Fixes of different places stay, to be measured together, even where each alone removes the
    same count of one function's problems (two logging calls in one `forward`: guarding the first moves the
    second's break from the resume function into `forward`). A change judged by time alone (regional
    compilation) removes no problem and stays."""
    covered: dict[str, int] = {}  # by finding key: how many of its problems the kept trials remove together
    first: dict[str, str] = {}  # by finding key: the first kept trial that removes some of it
    kept: list[Trial] = []
    left = []
    for trial in ranked:
        assert trial.result is not None
        gone = removed(before, trial.result)
        twin = _same_place(trial, kept)
        places_known = bool(_places(trial)) and all(_places(k) for k in kept)
        if gone and twin is not None:
            left.append(LeftOut(trial.title, f"another fix of the same line as {twin}, which leaves no more problems"))
            continue
        if gone and not places_known and all(covered.get(k, 0) >= before.problems[k] for k in gone):
            left.append(LeftOut(trial.title, f"removes only what {first[next(iter(gone))]} removes already"))
            continue
        for key, count in gone.items():
            covered[key] = covered.get(key, 0) + count
            first.setdefault(key, trial.title)
        kept.append(trial)
    return kept, left


def _places(trial: Trial) -> set[str]:
    return {site for c in trial.candidates for site in c.sites}


def _same_place(trial: Trial, kept: Sequence[Trial]) -> str | None:
    """The title of a kept (better) trial answering a finding at one of the same places (None: none does)."""
    mine = _places(trial)
    return next((other.title for other in kept if mine & _places(other)), None)


def _combinable(helpful: Sequence[Trial], originals: Mapping[Path, str]) -> tuple[list[Trial], list[LeftOut]]:
    """The helpful trials whose edits can be made together, in the order given."""
    chosen: list[Trial] = []
    left = []
    for trial in helpful:
        if not all(c.edits for c in trial.candidates):
            left.append(LeftOut(trial.title, "a patch given as made is measured alone"))
            continue
        try:
            changed_texts([e for t in (*chosen, trial) for c in t.candidates for e in c.edits], originals)
        except EditError:
            left.append(LeftOut(trial.title, "its edits collide with those of a better change"))
            continue
        chosen.append(trial)
    return chosen, left


def _with_patch(
    trials: list[Trial],
    originals: Mapping[Path, str],
    runner: TrialRunner[RunResult],
    context: _Judging,
    place: _Place,
) -> Measured:
    ranked = sorted((t for t in trials if t.helps), key=_rank)
    kept, left = _without_duplicates(ranked, context.before)
    chosen, collided = _combinable(kept, originals) if len(kept) >= 2 else (kept, [])
    left += collided
    combined = None
    if len(chosen) >= 2:
        group = tuple(c for t in chosen for c in t.candidates)
        changed = changed_texts([e for c in group for e in c.edits], originals)
        runner.add(1)
        job = Job(" + ".join(c.title for c in group), _in_copy(place.root, place.measure, changed))
        combined = _confirmed([_judged(group, changed, runner.run(job), context)], runner, context, place, 1)[0]
    patch, more = _choose(ranked, chosen, combined, context)
    return Measured(trials, combined, context.noise, context.output_varies, patch, tuple(left + more))


def _choose(
    ranked: Sequence[Trial], chosen: Sequence[Trial], combined: Trial | None, context: _Judging
) -> tuple[Trial | None, list[LeftOut]]:
    """The patch: the helpful ones together when they leave fewer problems than the best one alone, else the best
    one; and why the others stayed out."""
    if not ranked:
        return None, []
    alone = ranked[0]
    together_better = (
        combined is not None
        and combined.helps
        and combined.result is not None
        and alone.result is not None
        and problem_count(combined.result) < problem_count(alone.result)
    )
    if together_better:
        return combined, []
    if combined is None:
        reason = f"{alone.title} leaves fewer problems, or as few with a smaller change"
    elif combined.helps:
        reason = f"together with {alone.title} it left no fewer problems than {alone.title} alone"
    else:
        reason = f"together with {alone.title} it was {combined.verdict.outcome}: {combined.verdict.detail or ''}"
    return alone, [LeftOut(t.title, reason.rstrip(": ")) for t in chosen if t is not alone]
