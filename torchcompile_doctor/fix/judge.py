"""What a trial of a fix did to the program, judged against the plain run: a change is kept only when the program
still runs as before (the same exit status and the same printed results) and nothing got worse. Numbers in the
printed results may differ in their last digits (a compiled kernel rounds differently), not more."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from torchcompile_doctor.experiments.verify import compile_time_effect
from torchcompile_doctor.model.findings import RunFigures
from torchcompile_doctor.model.report import Kind, Report

HELPS, NO_EFFECT, WORSE, CRASHED, OUTPUT_CHANGED, NOT_MEASURED, NOT_BUILDABLE = (
    "helps",
    "no effect",
    "worse",
    "crashed",
    "output changed",
    "not measured",
    "not buildable",
)
RELATIVE_TOLERANCE = 1e-3  # printed numbers that differ by more are a different result
ABSOLUTE_TOLERANCE = 1e-6
_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


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
    timed_out: bool = False  # stopped at the time a trial may take
    # how many breaks, recompiles, fallbacks and failures each finding counts, by the finding's rule, file and
    # function (no line or source: a rewrite changes those), to tell which problems a change removed
    problems: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Verdict:
    status: str  # HELPS, NO_EFFECT, WORSE, CRASHED, OUTPUT_CHANGED
    detail: str | None = None  # what crashed, which printed line changed, what got worse


def _numbers_match(before: str, after: str) -> bool:
    a, b = float(before), float(after)
    return math.isclose(a, b, rel_tol=RELATIVE_TOLERANCE, abs_tol=ABSOLUTE_TOLERANCE)


def _same_line(before: str, after: str) -> bool:
    if before == after:
        return True
    if _NUMBER.sub("#", before) != _NUMBER.sub("#", after):
        return False
    pairs = zip(_NUMBER.findall(before), _NUMBER.findall(after), strict=True)
    return all(_numbers_match(was, now) for was, now in pairs)


def changed_output(before: str, after: str) -> str | None:
    """The first printed line that differs (None: the same results)."""
    was, now = before.splitlines(), after.splitlines()
    for number, (old, new) in enumerate(zip(was, now, strict=False), start=1):
        if not _same_line(old, new):
            return f"printed line {number} was `{old.strip()[:80]}`, now `{new.strip()[:80]}`"
    if len(was) != len(now):
        return f"printed {len(now)} line(s) instead of {len(was)}"
    return None


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


def judge(before: RunResult, after: RunResult, by_compile_time: bool, compare_output: bool = True) -> Verdict:
    """`compare_output` False: the program prints other results on every run (a plain run again differed), so
    its printed lines say nothing about a change."""
    if after.timed_out:
        return Verdict(NOT_MEASURED, f"stopped after {after.wall_s:.0f} s (a trial may take 4x the plain run)")
    if after.exit_code != before.exit_code or (before.succeeded and not after.succeeded):
        return Verdict(CRASHED, crash_line(after.errors, after.exit_code)[:200])
    changed = changed_output(before.output, after.output) if compare_output else None
    if changed is not None:
        return Verdict(OUTPUT_CHANGED, changed)
    was, now = _problems(before), _problems(after)
    grew = [name for name in was if now[name] > was[name]]
    if grew:
        return Verdict(WORSE, ", ".join(f"{name} {was[name]} → {now[name]}" for name in grew))
    fewer = any(now[name] < was[name] for name in was)
    if by_compile_time and not fewer:
        effect = compile_time_effect(before.figures, after.figures, ok=True)
        return Verdict({"improved": HELPS, "worse": WORSE}.get(effect, NO_EFFECT))
    return Verdict(HELPS if fewer else NO_EFFECT)
