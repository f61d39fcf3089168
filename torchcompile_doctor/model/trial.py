"""The one vocabulary of a measured change, for `--try-fixes` and `doctor fix` alike: what one run of the program
gave (RunResult), how much its timings vary by themselves (Spread, Noise), what a change did (Verdict, its Outcome)
and why a helpful change stayed out of the patch (LeftOut). fix/judge.py makes the verdicts; fix/trials.py runs
the trials; experiments/verify.py and fix/result.py put them where users read them."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from torchcompile_doctor.model.findings import RunFigures


class Outcome(StrEnum):
    """What a measured change did, in the words users read."""

    # the problems it was made for are gone, nothing worse; a recompile-limit hit gone whose calls now compile
    # (a sweep's limit raised) may leave more recompiles: compiling more is the fix (fix/judge.py: compiles_more)
    FIXED = "fixed"
    IMPROVED = "improved"  # fewer problems, or faster beyond the noise, nothing worse
    TRADE_OFF = "trade-off"  # fewer problems, but compile or steady-state time worse beyond the noise
    NO_EFFECT = "no effect"
    WORSE = "worse"  # more problems, or slower beyond the noise
    COMPILES_LESS = "compiles less"  # fewer ops reach a compiled graph: never a fix
    CRASHED = "crashed"  # the program no longer ends as it did
    OUTPUT_CHANGED = "output changed"  # it prints other numbers
    NOT_MEASURED = "not measured"
    NOT_BUILDABLE = "not buildable"


HELPFUL = frozenset({Outcome.FIXED, Outcome.IMPROVED})


@dataclass(frozen=True)
class Verdict:
    outcome: Outcome
    detail: str | None = None  # what crashed, which printed line changed, what got worse, both figures of a trade-off
    label: str | None = None  # kept, but worth saying: `prints tensor(0.0064) for 0.0064`

    @property
    def helps(self) -> bool:
        return self.outcome in HELPFUL


@dataclass(frozen=True)
class RunResult:
    """One run of the program under the doctor: what torch did, how it ended, what it printed."""

    figures: RunFigures
    fallbacks: int  # frames torch ran eagerly (skipped, or over the recompile limit)
    succeeded: bool
    exit_code: int | None
    output: str  # its stdout
    errors: str  # the end of its stderr
    wall_s: float
    timed_out: bool = False  # stopped at the time a trial may take: its figures are partial
    # how many breaks, recompiles, fallbacks and failures each finding counts, by the finding's rule, file and
    # function (no line or source: a rewrite changes those), to tell which problems a change removed
    problems: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Spread:
    """One timing over repeated plain runs: its median and how far the runs lay apart (max - min)."""

    median: float
    spread: float
    runs: int

    @classmethod
    def of(cls, values: Sequence[float]) -> Spread:
        if not values:
            return cls(0.0, 0.0, 0)
        # to the microsecond: what the runs measured, without a float's last digits in the JSON
        return cls(round(statistics.median(values), 6), round(max(values) - min(values), 6), len(values))


@dataclass(frozen=True)
class Noise:
    """How much the plain run's compile time and steady-state time varied by themselves (None: not timed), over the
    runs timed as the trials are: their medians are the "before" a trial's timings are put beside and judged
    against. `forked`: those runs are the plain run's repeats forked from the warm process as the trials are (the
    plain run itself, which ran alone before them, is not among them: its timings are of another kind); none of them
    (`compile_s.runs` 0) means no timing was compared."""

    compile_s: Spread
    steady_s: Spread | None = None
    forked: bool = False

    @classmethod
    def of(cls, runs: Sequence[RunResult], *, forked: bool = False) -> Noise:
        steady = [r.figures.steady_state_s for r in runs if r.figures.steady_state_s is not None]
        compile_s = Spread.of([r.figures.compile_time_s for r in runs])
        return cls(compile_s, Spread.of(steady) if steady else None, forked)

    @property
    def timed(self) -> bool:
        """Whether any run was timed as the trials are (else timings are neither compared nor shown)."""
        return self.compile_s.runs > 0


@dataclass(frozen=True)
class LeftOut:
    """A helpful change the patch does not hold, and why (as pip-audit's SkippedFixVersion)."""

    change: str
    reason: str


def seconds_words(value: float | None) -> str:
    """Seconds as people read them: `1.20 s`, `0.120 s`, `4.2 ms`, `85 µs` (a compiled call is often short)."""
    if value is None:
        return "?"
    if value >= 0.1:
        return f"{value:.2f} s" if value >= 1 else f"{value:.3f} s"
    return f"{value * 1e3:.1f} ms" if value >= 1e-3 else f"{value * 1e6:.0f} µs"


def timing_words(noise: Noise, after: RunFigures) -> str | None:
    """`compile 1.20 s → 3.40 s, steady state 0.110 s → 0.105 s`: the medians of the runs timed as the trials are
    (the noise's; never the plain run's own, which ran alone, when the trials forked warm) beside the trial's, in
    the verdict's words and the report's alike. None: no run was timed as the trials are, so no timing is put
    beside the trial's."""
    if not noise.timed:
        return None
    words = f"compile {seconds_words(noise.compile_s.median)} → {seconds_words(after.compile_time_s)}"
    if noise.steady_s is not None and after.steady_state_s is not None:
        words += f", steady state {seconds_words(noise.steady_s.median)} → {seconds_words(after.steady_state_s)}"
    return words
