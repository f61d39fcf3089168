"""The HTML page's tables and the per-frame phase bars, as typed rows computed from a Report: where the graphs
are, compile time per frame by phase, guards per frame, the compile-time facts. A column or a fact that would
be empty (or all zero, as the caches and later phases of an eager run) is left out. Pure."""

from __future__ import annotations

import heapq
import re
from dataclasses import dataclass

from torchcompile_doctor.model.compile_time import PHASES, CompileTime, FrameCompileTime
from torchcompile_doctor.model.report import Finding, Kind, Report

BAR_WIDTH = 1000  # viewBox units of a phase bar
BAR_ROWS = 20  # frames drawn; the rest are summed in one line
IDS_SHOWN = 12  # compile ids listed in a row of "where the graphs are"; the rest counted
GRAPH_ROWS = 60  # compiled functions in "where the graphs are": those split by a break first, then the most compiled
GUARD_ROWS = 40  # frames in the guard table, most guards first; the rest counted
SHOWN_S = 0.005  # a phase shorter than this reads as 0.00 s: left out
_RESUME = re.compile(r"\(after line (\d+)\)$|^torch_dynamo_resume_in_\w+?_at_(\d+)$")  # how the index names one


def primary_compile_time(report: Report) -> CompileTime | None:
    """The compile time the per-frame pictures show: the process's, or the first rank's."""
    if report.compile_time is not None:
        return report.compile_time
    return report.rank_compile_times[0][1] if report.rank_compile_times else None


# -- where the graphs are


@dataclass(frozen=True)
class Split:
    line: int
    code: str
    rank: int  # the finding's


@dataclass(frozen=True)
class GraphRow:
    function: str
    where: str
    graphs: int  # compiles that gave a graph
    compile_ids: tuple[str, ...]  # the first IDS_SHOWN compiles', "0/8 no graph" for one torch gave up on
    more_ids: int  # compiles not listed
    splits: tuple[Split, ...]
    span: str  # the code its graphs hold, in words
    resume: bool


def _span(function: str, line: int, splits: tuple[Split, ...]) -> str:
    """The code a frame's graphs hold: a resume function's from the break it resumes after, the function's own
    from its first line up to its first break."""
    resume = _RESUME.search(function)
    if resume:
        return f"after the break at line {resume.group(1) or resume.group(2)}"
    first = min((s.line for s in splits), default=None)
    return f"lines {line}–{first}" if first is not None and first > line else f"from line {line}, whole"


def _same_function(a: str, b: str) -> bool:
    """Names the index gave with their class (`Block.forward`) must match whole; a bare name its last part."""
    return a == b if "." in a and "." in b else a.split(".")[-1] == b.split(".")[-1]


def _split_lines(finding: Finding, frame: FrameCompileTime, name: str) -> list[int]:
    """The lines of `frame` where the break splits it: the break's own line when it is in the frame's function,
    or for a break inside code the frame calls (a helper, a library), the frame's lines that called it; never a
    line above the frame's `def`."""
    location = finding.location
    if location is None:
        return []
    if location.file == frame.file and _same_function(location.function, name):
        return [location.line] if location.line >= frame.line else []
    lines = []
    for site in finding.call_sites:
        file, _, line = site.rpartition(":")
        if line.isdecimal() and file and frame.where.startswith(file + ":") and int(line) >= frame.line:
            lines.append(int(line))
    return sorted(set(lines))


def graph_rows(report: Report) -> tuple[GraphRow, ...]:
    """Each compiled function, its graphs (compiles), the code they hold and the lines where it split (the
    graph-break findings inside it); resume functions listed after the function."""
    data = primary_compile_time(report)
    if data is None:
        return ()
    breaks = [f for f in report.findings if Kind(f.kind).is_break and f.location is not None]
    rows = []
    for frame in sorted(data.frames, key=lambda f: (f.file, f.line, bool(_RESUME.search(f.function)))):
        name = frame.function.split(" (after line")[0]
        resume = _RESUME.search(frame.function)
        after = int(resume.group(1) or resume.group(2)) if resume else 0  # a resume function holds what follows
        splits = tuple(
            Split(line, f.code, f.rank) for f in breaks for line in _split_lines(f, frame, name) if line > after
        )
        rows.append(
            GraphRow(
                function=frame.function,
                where=frame.where,
                graphs=sum(not c.failed for c in frame.compiles),
                compile_ids=tuple(c.compile_id + (" no graph" if c.failed else "") for c in frame.compiles[:IDS_SHOWN]),
                more_ids=max(len(frame.compiles) - IDS_SHOWN, 0),
                splits=splits,
                span=_span(frame.function, frame.line, splits),
                resume=resume is not None,
            )
        )
    return tuple(rows)


def shown_graph_rows(rows: tuple[GraphRow, ...]) -> tuple[tuple[GraphRow, ...], int]:
    """(the rows listed, in their order, and how many are not): every row up to GRAPH_ROWS, else the functions a
    break splits first, then those compiled most."""
    if len(rows) <= GRAPH_ROWS:
        return rows, 0
    kept = heapq.nsmallest(
        GRAPH_ROWS, range(len(rows)), key=lambda i: (not rows[i].splits, -len(rows[i].compile_ids) - rows[i].more_ids)
    )
    return tuple(rows[i] for i in sorted(kept)), len(rows) - GRAPH_ROWS


# -- compile time per frame, by phase


@dataclass(frozen=True)
class Segment:
    x: float
    width: float
    phase: str
    title: str


@dataclass(frozen=True)
class PhaseBar:
    function: str
    where: str
    seconds: float
    compiles: int
    segments: tuple[Segment, ...]


@dataclass(frozen=True)
class PhaseBars:
    bars: tuple[PhaseBar, ...]
    phases: tuple[tuple[str, str, float], ...]  # (phase, label, seconds) of the phases with time in them
    rest: int  # frames not drawn
    rest_s: float


def _bar(frame: FrameCompileTime, longest: float, labels: dict[str, str]) -> PhaseBar:
    x, segments = 0.0, []
    for phase in PHASES:
        seconds = frame.phases[phase]
        width = seconds / longest * BAR_WIDTH
        if width >= 0.5:
            title = f"{labels[phase]}: {seconds:.2f} s"
            segments.append(Segment(round(x, 1), round(width, 1), phase, title))
        x += width
    return PhaseBar(frame.function, frame.where, frame.seconds, len(frame.compiles), tuple(segments))


def phase_bars(data: CompileTime | None) -> PhaseBars | None:
    """Compile time per frame as bars stacked by phase, on one scale, costliest first."""
    if data is None or not data.frames or data.total_s < SHOWN_S:
        return None
    frames = sorted(data.frames, key=lambda f: -f.seconds)
    longest = frames[0].seconds or 1.0
    totals = data.phases
    return PhaseBars(
        bars=tuple(_bar(frame, longest, data.labels) for frame in frames[:BAR_ROWS]),
        phases=tuple((p, data.labels[p], totals[p]) for p in PHASES if totals[p] >= SHOWN_S),
        rest=max(len(frames) - BAR_ROWS, 0),
        rest_s=sum(f.seconds for f in frames[BAR_ROWS:]),
    )


def compile_facts(data: CompileTime | None) -> tuple[str, ...]:
    """The compile time in sentences: total and phases, warm-up, caches; nothing that is all zero."""
    if data is None or data.total_s < SHOWN_S:
        return ()
    share = f" ({data.share_of_run:.0%} of the {data.run_s:.1f} s run)" if data.share_of_run is not None else ""
    phases = ", ".join(f"{data.labels[p]} {data.phases[p]:.2f} s" for p in PHASES if data.phases[p] >= SHOWN_S)
    facts = [f"compile time {data.total_s:.2f} s{share}: {phases}"]
    if data.late_s >= SHOWN_S:
        facts.append(f"{data.late_s:.2f} s of it compiling again after each function's first compile (recompiles)")
    if data.last_compile_end_s is not None:
        facts.append(f"the last compile ended {data.last_compile_end_s:.2f} s after the run started")
    for name, counts in data.cache_totals().items():
        if counts.hits or counts.misses or counts.bypasses:
            label = "FX-graph cache" if name == "fx_graph" else "AOT-autograd cache"
            facts.append(f"{label}: {counts.hits} hit(s), {counts.misses} miss(es), {counts.bypasses} bypass(es)")
    if data.cache.saved_s >= SHOWN_S:
        facts.append(f"the cache hits saved {data.cache.saved_s:.2f} s of compiling (a fresh machine pays it)")
    facts += [f"cache bypassed: {reason}" for reason in data.cache.miss_reasons]
    return tuple(facts)


# -- guards per frame


@dataclass(frozen=True)
class GuardRow:
    function: str
    where: str
    entries: int
    guards: int
    latency_us: float | None
    compiled_us: float | None
    skip_guards_us: float | None


@dataclass(frozen=True)
class GuardTable:
    rows: tuple[GuardRow, ...]  # at most GUARD_ROWS, most guards first
    rest: int  # frames not listed
    latency: bool  # the column has a value in some row
    per_call: bool


def guard_table(report: Report) -> GuardTable | None:
    """Guard counts and cost per compiled frame: torch's counts per cache entry and the measured overhead."""
    rows = []
    for frame in report.guards:
        counts = [e.guard_count if e.guard_count is not None else e.tree_guards for e in frame.entries]
        latency = [e.latency_us for e in frame.entries if e.latency_us is not None]
        overhead = frame.overhead
        rows.append(
            GuardRow(
                function=frame.function,
                where=f"{frame.display_file or frame.file}:{frame.line}",
                entries=len(frame.entries),
                guards=max(counts) if counts else 0,
                latency_us=max(latency) if latency else None,
                compiled_us=overhead.compiled_us if overhead else None,
                skip_guards_us=overhead.skip_guards_us if overhead else None,
            )
        )
    if not rows:
        return None
    if len(rows) > GUARD_ROWS:  # a long job's many frames: the costliest listed, in the report's order
        kept = set(heapq.nlargest(GUARD_ROWS, range(len(rows)), key=lambda i: (rows[i].guards, rows[i].entries)))
        rows = [row for i, row in enumerate(rows) if i in kept]
    return GuardTable(
        rows=tuple(rows),
        rest=len(report.guards) - len(rows),
        latency=any(r.latency_us is not None for r in rows),
        per_call=any(r.compiled_us is not None for r in rows),
    )
