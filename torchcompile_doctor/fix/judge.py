"""What a trial of a change did to the program, judged against the plain run, for `doctor fix` and `--try-fixes`
alike (one verdict: model/trial.py's Verdict). A change is kept only when the program still ends as before, prints
the same numbers, still compiles what it compiled, and nothing users pay for got worse beyond the measured noise:
breaks, recompiles, limit hits, failures, fallbacks, compile time, steady-state time of the compiled calls.

Printed results are compared number by number: `tensor(0.0064)` is the number 0.0064, floats agree to a relative
1e-3 (a compiled kernel rounds differently); a line that differs only in how a number is printed is the same
result, and the verdict says so. A timing counts only beyond its noise: the plain run's spread over repeats, and
never less than a floor (a fraction of the median, a few hundredths of a second), so a loaded machine cannot
decide a patch."""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, replace

from torchcompile_doctor.events.model import CallCount, CompilationMetrics
from torchcompile_doctor.model.report import Kind, Report
from torchcompile_doctor.model.trial import Noise, Outcome, RunResult, Spread, Verdict, timing_words

RELATIVE_TOLERANCE = 1e-3  # printed numbers that differ by more are a different result
ABSOLUTE_TOLERANCE = 1e-6
COMPILE_NOISE_FLOOR = (0.25, 0.5)  # (fraction of the median, seconds): a smaller compile-time change is noise
STEADY_NOISE_FLOOR = (0.25, 0.005)  # the same for the steady-state time of the compiled calls
OPS_KEPT = 0.5  # a change that leaves fewer than this share of the ops run compiled compiles less
_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")
# how torch and numpy print a number: `tensor(0.0064)`, `tensor([1., 2.], grad_fn=<AddBackward0>)`, `np.float64(0.5)`
_WRAPPED = re.compile(
    r"\b(?:tensor|np\.(?:float|int)\d+|array)\(([^()]*?)"
    r"(?:,\s*(?:grad_fn|dtype|device|requires_grad)=[^()]*?(?:\([^()]*\))?[^()]*?)?\)"
)


# -- what the program printed, number by number ----------------------------------------------------------------
def _numbers_match(before: str, after: str) -> bool:
    return math.isclose(float(before), float(after), rel_tol=RELATIVE_TOLERANCE, abs_tol=ABSOLUTE_TOLERANCE)


def _last_place(printed: str) -> float:
    """The unit of a printed number's last digit: `0.0047` -> 1e-4, `4.6667e-03` -> 1e-7, `12` -> 1."""
    mantissa, _, exponent = printed.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 10.0 ** ((int(exponent) if exponent else 0) - decimals)


def _same_when_rounded(before: str, after: str) -> bool:
    """The two are one number printed to different precisions: they differ by no more than half the last place
    of the coarser (torch prints a tensor's value to 4 decimals: `tensor(0.0047)` for `0.004666666666666667`)."""
    half = 0.5 * max(_last_place(before), _last_place(after))
    return abs(float(before) - float(after)) <= half * (1 + RELATIVE_TOLERANCE) + ABSOLUTE_TOLERANCE


def _same_numbers(before: str, after: str, *, as_printed: bool = False) -> bool:
    """The same text around the same numbers; `as_printed`: a number printed coarser (by torch's tensor print)
    counts as the same when it is the other rounded."""
    if _NUMBER.sub("#", before) != _NUMBER.sub("#", after):
        return False
    pairs = zip(_NUMBER.findall(before), _NUMBER.findall(after), strict=True)
    return all(_numbers_match(was, now) or (as_printed and _same_when_rounded(was, now)) for was, now in pairs)


def _unwrapped(line: str) -> str:
    return _WRAPPED.sub(r"\1", line)


@dataclass(frozen=True)
class OutputComparison:
    """What differs between two printouts (None: the same numbers), and a line that prints the same numbers
    another way (`prints tensor(0.0064) for 0.0064`)."""

    differs: str | None
    printed_otherwise: str | None = None


def _line_label(old: str, new: str) -> str:
    return f"prints `{new.strip()[:60]}` for `{old.strip()[:60]}`"


def compare_output(before: str, after: str) -> OutputComparison:
    was, now = before.splitlines(), after.splitlines()
    label = None
    for number, (old, new) in enumerate(zip(was, now, strict=False), start=1):
        if old == new or _same_numbers(old, new):
            continue
        plain_old, plain_new = _unwrapped(old), _unwrapped(new)
        wrapped = (plain_old, plain_new) != (old, new)  # a tensor's print: its own precision (4 decimals)
        if wrapped and _same_numbers(plain_old, plain_new, as_printed=True):
            label = label or _line_label(old, new)
            continue
        return OutputComparison(f"printed line {number} was `{old.strip()[:80]}`, now `{new.strip()[:80]}`")
    if len(was) != len(now):
        return OutputComparison(f"printed {len(now)} line(s) instead of {len(was)}")
    return OutputComparison(None, label)


def changed_output(before: str, after: str) -> str | None:
    """The first printed line whose numbers differ (None: the same results)."""
    return compare_output(before, after).differs


# -- what a run compiled and what its compiled calls cost ---------------------------------------------------------
def compiled_ops(metrics: Iterable[CompilationMetrics], counts: Iterable[CallCount] = ()) -> int | None:
    """Ops run in compiled graphs: each compiled frame's largest graph (a recompile of a frame is not more code
    compiled; a break splits a frame's ops between it and its resume function), times the calls of that frame
    when the capture counted them (regional compilation compiles one block's graph and runs it once per block),
    summed. None: no record gave a graph's size."""
    largest: dict[tuple[str | None, int | None], int] = {}
    counted = False
    for record in metrics:
        if record.graph_op_count is None:
            continue
        counted = True
        frame = (record.co_filename, record.co_firstlineno)
        largest[frame] = max(largest.get(frame, 0), record.graph_op_count)
    calls: dict[tuple[str | None, int | None], int] = {(c.function_file, c.function_line): c.calls for c in counts}
    return sum(ops * max(1, calls.get(frame, 1)) for frame, ops in largest.items()) if counted else None


def steady_state_s(counts: Iterable[CallCount]) -> float | None:
    """The compiled calls' steady-state time: each compiled function's median call that compiled nothing, times
    its calls (None: no call ran without compiling)."""
    timed = [c for c in counts if c.steady_median_s is not None]
    return sum((c.steady_median_s or 0.0) * c.calls for c in timed) if timed else None


PROBLEM_KINDS = frozenset(
    {Kind.GRAPH_BREAK, Kind.RECOMPILE, Kind.RECOMPILE_LIMIT, Kind.FRAME_SKIPPED, Kind.COMPILE_FAILURE}
)


def problems_by_finding(report: Report) -> dict[str, int]:
    """The report's breaks, recompiles, fallbacks and failures, counted by finding (rule, file, function)."""
    counted: dict[str, int] = {}
    for finding in report.findings:
        if finding.kind in PROBLEM_KINDS:
            key = " ".join(
                [finding.code, finding.location.display_file or finding.location.file, finding.location.function]
                if finding.location
                else [finding.code, finding.title]
            )
            counted[key] = counted.get(key, 0) + max(1, finding.count)
    return counted


def removed(before: RunResult, after: RunResult) -> dict[str, int]:
    """The problems `after` no longer has, by finding: how many of each it removed."""
    return {
        key: was - after.problems.get(key, 0)
        for key, was in before.problems.items()
        if after.problems.get(key, 0) < was
    }


def _problems(run: RunResult) -> dict[str, int]:
    """What a fix must not increase. The number of graphs is not one: a frame that ran eagerly has none, and
    compiling it (one graph more) is the improvement."""
    figures = run.figures
    return {
        "graph breaks": figures.graph_breaks,
        "recompiles": figures.recompiles,
        "recompile-limit hits": figures.recompile_limit_hits,
        "compile failures": figures.compile_failures,
        "fallbacks to eager": run.fallbacks,
    }


def compiles_more(before: RunResult, after: RunResult) -> str | None:
    """Recompiles that rose because the calls that ran eagerly past the recompile limit now compile (the limit
    raised for a sweep whose recompiles are inherent): fewer limit hits, no more fallbacks to eager, at least as
    many graphs. That is compiling more, the fix, not a worse run; None where the recompiles rose otherwise."""
    was, now = before.figures, after.figures
    if now.recompiles <= was.recompiles or now.recompile_limit_hits >= was.recompile_limit_hits:
        return None
    if after.fallbacks > before.fallbacks or now.graphs < was.graphs:
        return None
    return (
        f"recompile-limit hits {was.recompile_limit_hits} → {now.recompile_limit_hits}, recompiles "
        f"{was.recompiles} → {now.recompiles}: the calls that ran eagerly past the limit now compile (graphs "
        f"{was.graphs} → {now.graphs})"
    )


def problem_count(run: RunResult) -> int:
    """Breaks, recompiles, limit hits, failures and eager fallbacks together: fewer is better."""
    return sum(_problems(run).values())


_EXCEPTION_LINE = re.compile(r"^[\w.]*(?:Error|Exception|Exit|Interrupt)\b.*")


def crash_line(errors: str, exit_code: int | None) -> str:
    """What ended the run: the last line naming an exception (torch prints advice after its own, e.g. `Set
    TORCHDYNAMO_VERBOSE=1 ...`), else the last line, else the exit status."""
    lines = [line.strip() for line in errors.strip().splitlines() if line.strip()]
    named = [line for line in lines if _EXCEPTION_LINE.match(line)]
    return (named or lines or [f"exit status {exit_code}"])[-1]


# -- timings against their noise ---------------------------------------------------------------------------------
def _margin(spread: Spread, floor: tuple[float, float]) -> float:
    fraction, seconds = floor
    return max(spread.spread, fraction * spread.median, seconds)


def _timing_change(was: Spread, now: float | None, floor: tuple[float, float]) -> int:
    """-1 faster beyond the noise, 1 slower beyond it, 0 within it (or not timed)."""
    if now is None or was.runs == 0:
        return 0
    margin = _margin(was, floor)
    return 1 if now - was.median > margin else -1 if was.median - now > margin else 0


@dataclass(frozen=True)
class TimingChange:
    compile: int  # -1 faster beyond the noise, 1 slower, 0 within it
    steady: int
    words: str  # both figures: `compile 1.20 s → 3.40 s, steady state 0.110 s → 0.105 s`


def timing_change(after: RunResult, noise: Noise) -> TimingChange:
    compile_change = _timing_change(noise.compile_s, after.figures.compile_time_s, COMPILE_NOISE_FLOOR)
    steady = noise.steady_s
    steady_change = _timing_change(steady, after.figures.steady_state_s, STEADY_NOISE_FLOOR) if steady else 0
    return TimingChange(compile_change, steady_change, timing_words(noise, after.figures) or "")


def _problems_changed(before: RunResult, after: RunResult, compiles_more: bool) -> tuple[str, bool]:
    """What grew, in words (empty: nothing), and whether any problem fell. Recompiles that rose because the
    calls past the recompile limit now compile (`compiles_more`) are neither."""
    was, now = _problems(before), _problems(after)
    counted = [name for name in was if not (compiles_more and name == "recompiles")]
    grew = ", ".join(f"{name} {was[name]} → {now[name]}" for name in counted if now[name] > was[name])
    return grew, any(now[name] < was[name] for name in counted)


def _eager_now_compiled(before: RunResult, after: RunResult) -> bool:
    """Calls that ran eagerly (past the recompile limit, or a skipped frame) now compile: more graphs, fewer
    limit hits or fallbacks, none more."""
    was, now = before.figures, after.figures
    fewer = now.recompile_limit_hits < was.recompile_limit_hits or after.fallbacks < before.fallbacks
    more = now.recompile_limit_hits > was.recompile_limit_hits or after.fallbacks > before.fallbacks
    return fewer and not more and now.graphs > was.graphs


def _judged_timing(before: RunResult, after: RunResult, plain: Noise, compiles_more: bool) -> TimingChange:
    timing = timing_change(after, plain)
    if compiles_more:  # the compile time judged per graph compiled; its words keep the measured figures
        timing = replace(timing, compile=timing_change(after, _per_graph(plain, before, after)).compile)
    return timing


def _per_graph(noise: Noise, before: RunResult, after: RunResult) -> Noise:
    """The plain run's compile time scaled to the graphs the change compiles: calls that ran eagerly past the
    recompile limit and now compile add their compiles, which is what compiling them costs, not a slower compile."""
    graphs, now = max(1, before.figures.graphs), after.figures.graphs
    ratio = max(1.0, now / graphs)
    scaled = Spread(noise.compile_s.median * ratio, noise.compile_s.spread * ratio, noise.compile_s.runs)
    return replace(noise, compile_s=scaled)


# -- the verdict -------------------------------------------------------------------------------------------------
def _compiles_less(before: RunResult, after: RunResult, moves_the_boundary: bool) -> str | None:
    """A change that runs far fewer ops compiled, or compiles nothing at all. A change that moves what is compiled
    (regional compilation: blocks compiled one by one, the glue between them eager, each block's calls not counted
    by the capture) is held only to still compiling something."""
    was, now = before.figures.compiled_ops, after.figures.compiled_ops
    if not moves_the_boundary and was is not None and now is not None and was > 0 and now < was * OPS_KEPT:
        return f"ops run in compiled graphs {was} → {now}"
    if before.figures.graphs > 0 and after.figures.graphs == 0:
        return f"graphs {before.figures.graphs} → 0: nothing compiles"
    return None


def _partial(before: RunResult, after: RunResult) -> str:
    was, now = before.figures, after.figures
    return (
        f"cut short after {after.wall_s:.0f} s by the budget; partial figures: breaks {was.graph_breaks} → "
        f"{now.graph_breaks}, recompiles {was.recompiles} → {now.recompiles}"
    )


def _ends_as_before(before: RunResult, after: RunResult, compare: bool, by_compile_time: bool) -> Verdict | None:
    """The verdict when the program no longer ends as before, or prints other numbers; None when it does not."""
    if after.timed_out:
        return Verdict(Outcome.NOT_MEASURED, _partial(before, after))
    if after.exit_code != before.exit_code or (before.succeeded and not after.succeeded):
        return Verdict(Outcome.CRASHED, crash_line(after.errors, after.exit_code)[:200])
    if compare and (differs := compare_output(before.output, after.output).differs) is not None:
        return Verdict(Outcome.OUTPUT_CHANGED, differs)
    less = _compiles_less(before, after, by_compile_time)
    return Verdict(Outcome.COMPILES_LESS, less) if less else None


def _all_gone(before: RunResult, after: RunResult, codes: Collection[str]) -> bool:
    """The run had problems of these rules, and has none left."""

    def of_codes(run: RunResult) -> int:
        return sum(count for key, count in run.problems.items() if key.split(" ")[0] in codes)

    return of_codes(before) > 0 and of_codes(after) == 0


def decided_by_timing(before: RunResult, after: RunResult, verdict: Verdict) -> bool:
    """A verdict that one timed run beyond the noise made: a trade-off, or worse with no problem grown (slower
    alone). On a busy machine one run can be slow by itself: such a verdict is measured again before it stands."""
    if verdict.outcome is Outcome.TRADE_OFF:
        return True
    was, now = _problems(before), _problems(after)
    return verdict.outcome is Outcome.WORSE and all(now[name] <= was[name] for name in was)


def ended_alike(first: RunResult, again: RunResult) -> bool:
    """Whether a change's second run ended as its first (neither cut short; the same exit code, graphs and problems
    of every finding): then the two are one change's runs, and only their timings differ."""
    ends = [(r.timed_out, r.exit_code, r.figures.graphs, r.problems) for r in (first, again)]
    return not first.timed_out and ends[0] == ends[1]


def fastest_of(runs: Sequence[RunResult]) -> RunResult:
    """One change's runs as one: the first run's counts and output (they are the same on every run: a change's
    counts are torch's), its timings the least of the runs'. A busy machine only ever adds time, so what a change
    costs in every run shows in the least too, and a run slowed by others' work does not count against it."""
    steady = [r.figures.steady_state_s for r in runs if r.figures.steady_state_s is not None]
    figures = replace(
        runs[0].figures,
        compile_time_s=min(r.figures.compile_time_s for r in runs),
        steady_state_s=min(steady) if steady else None,
    )
    return replace(runs[0], figures=figures)


def judge(
    before: RunResult,
    after: RunResult,
    *,
    noise: Noise | None = None,
    by_compile_time: bool = False,
    compare_output_too: bool = True,
    aimed_at: Collection[str] = (),
    inherent_recompiles: bool = False,
) -> Verdict:
    """`noise`: the plain run's timings over repeats (None: the plain run alone, the floors its only margin);
    `by_compile_time`: a change meant to make compiling cheaper (regional compilation, a carried cache), which
    helps by time alone; `compare_output_too` False: the program prints other results on every run, so its printed
    lines say nothing of a change; `aimed_at`: the rule codes the change answers (FIXED when none is left);
    `inherent_recompiles`: a change made for a sweep whose recompiles are inherent (the recompile limit raised to
    its size), where recompiles that rose as the calls past the limit now compile are compiling more. For any other
    change more recompiles are worse: raising the limit over a recompile a tensor or dynamic shape removes hides it."""
    refused = _ends_as_before(before, after, compare_output_too, by_compile_time)
    if refused is not None:
        return refused
    label = compare_output(before.output, after.output).printed_otherwise if compare_output_too else None
    more = compiles_more(before, after) if inherent_recompiles else None
    grew, fewer = _problems_changed(before, after, more is not None)
    if grew:
        return Verdict(Outcome.WORSE, grew, label)
    timing = _judged_timing(before, after, noise or Noise.of([before]), _eager_now_compiled(before, after))
    if timing.compile > 0 or timing.steady > 0:
        return Verdict(Outcome.TRADE_OFF if fewer else Outcome.WORSE, timing.words, label)
    if fewer:
        gone = _all_gone(before, after, aimed_at)
        return Verdict(Outcome.FIXED if gone else Outcome.IMPROVED, more, label)
    if by_compile_time and (timing.compile < 0 or timing.steady < 0):
        return Verdict(Outcome.IMPROVED, timing.words, label)
    return Verdict(Outcome.NO_EFFECT, None, label)
