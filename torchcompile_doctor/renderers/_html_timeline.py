"""The HTML page's compile timeline: one row per compiled frame on the run's wall-clock axis; in each row every
compile with its spans nested as torch timed them (`chromium_event`), or its phases one after another where the
trace has no spans; above them the findings' markers, laid out so that none covers another, each a link to its
finding. Geometry in viewBox units (the drawing scales with the page); pure: nothing here reads anything."""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from torchcompile_doctor.model.compile_time import (
    PHASES,
    CompileRecord,
    CompileTime,
    FrameCompileTime,
    TraceSpan,
)
from torchcompile_doctor.model.findings import compile_ids_of
from torchcompile_doctor.model.report import Finding, Kind, Report

Labels = Mapping[str, str]  # phase -> its name

VIEW_WIDTH = 1000  # viewBox units across the time axis: about a pixel each on a desktop page
LEVEL_HEIGHT = 7  # one nesting level of spans
MAX_LEVELS = 8  # deeper spans are drawn on the last level (inside their parents' time)
LANE_HEIGHT = 15  # one lane of markers
MARK_GAP = 3  # between two markers in one lane
MIN_SPAN_WIDTH = 0.5  # narrower spans are not drawn (the Perfetto file has them all)
MIN_COMPILE_WIDTH = 2.0  # a compile is drawn at least this wide
TIMELINE_ROWS = 40  # compiled functions drawn per lane; the rest counted under it (all of them: the Perfetto file)
COMPILE_ROWS = 60  # rows of the every-compile table; the rest are counted under it (all of them: the Perfetto file)
BAND_GAP = 1.0  # boxes of one level and phase closer than this (about a pixel) are drawn as one band
CHAR_WIDTH = 6.2  # of the markers' 10-unit label font
MARK_KINDS = ("break", "recompile", "fallback", "failure")
MARK_LABELS = {
    "break": "graph break",
    "recompile": "recompile",
    "fallback": "fallback to eager",
    "failure": "compile failure",
}
CPP_SPANS = frozenset({"compile_file", "async_compile.wait"})


@dataclass(frozen=True)
class Box:
    """A rectangle of a row: a span (or phase) of a compile, coloured by its phase."""

    x: float
    y: float
    width: float
    height: float
    phase: str  # a PHASES name (its colour), or "failed" for the outline of a compile that gave no graph
    title: str


@dataclass(frozen=True)
class Marker:
    """A finding at the compile it happened in: a labelled tab in a lane above the compiles (a run of the same
    finding's compiles close together shares one tab, `#2 ×8`), pointing down at the first compile."""

    kind: str  # MARK_KINDS
    rank: int  # the finding it links to
    x: float  # where its (first) compile starts
    end: float  # where its last compile starts
    left: float  # the tab
    width: float
    lane: int
    label: str
    title: str

    @property
    def y(self) -> float:
        return self.lane * LANE_HEIGHT


@dataclass(frozen=True)
class TimelineRow:
    function: str
    where: str
    compiles: int
    seconds: float
    boxes: tuple[Box, ...]
    markers: tuple[Marker, ...]
    lanes: int
    levels: int
    run_end: float | None

    @property
    def bars_y(self) -> float:
        return self.lanes * LANE_HEIGHT + (2 if self.lanes else 0)

    @property
    def height(self) -> float:
        return self.bars_y + self.levels * LEVEL_HEIGHT + 2


@dataclass(frozen=True)
class CompileLine:
    """One compile in words, for the table under the timeline (what the drawing shows, without hovering)."""

    function: str
    compile_id: str
    start_s: float | None
    seconds: float
    phases: str
    graph: bool  # False: torch gave up on it (a skipped frame, a failed compile)
    findings: tuple[tuple[int, str], ...]  # (rank, marker kind) of the findings marked at it
    rank: int | None  # the distributed rank, in a multi-rank report


@dataclass(frozen=True)
class CompileTable:
    """The table under the timeline: its totals first, then at most COMPILE_ROWS compiles in run order (those
    with a finding first, then the slowest); the rest counted, not listed."""

    rows: tuple[CompileLine, ...]
    count: int  # every compile
    seconds: float
    no_graph: int  # compiles torch gave up on
    with_findings: int
    rest: int  # compiles not listed
    rest_s: float

    @property
    def findings_column(self) -> bool:
        return any(line.findings for line in self.rows)


def compile_table(lines: Sequence[CompileLine], most: int = COMPILE_ROWS) -> CompileTable:
    """The compiles worth a row (a finding's first, then the slowest), in run order; one pass and one partial
    sort, whatever the number of compiles."""
    order = range(len(lines))
    kept = sorted(heapq.nsmallest(most, order, key=lambda i: (not lines[i].findings, -lines[i].seconds)))
    rows = tuple(lines[i] for i in kept)
    total = sum(line.seconds for line in lines)
    return CompileTable(
        rows=rows,
        count=len(lines),
        seconds=total,
        no_graph=sum(not line.graph for line in lines),
        with_findings=sum(bool(line.findings) for line in lines),
        rest=len(lines) - len(rows),
        rest_s=total - sum(line.seconds for line in rows),
    )


@dataclass(frozen=True)
class Tick:
    x: float
    label: str

    @property
    def percent(self) -> float:
        """Where the label sits across the axis: the axis is text laid out by the page, so its labels keep their
        size on a phone (an SVG's text shrinks with the drawing)."""
        return round(self.x / VIEW_WIDTH * 100, 2)


@dataclass(frozen=True)
class Lane:
    label: str  # "rank 1"; empty for one process
    rows: tuple[TimelineRow, ...]  # at most TIMELINE_ROWS: the functions with a finding marked, then the costliest
    rest: int = 0  # compiled functions not drawn
    rest_s: float = 0.0


@dataclass(frozen=True)
class Timeline:
    lanes: tuple[Lane, ...]
    ticks: tuple[Tick, ...]
    phases: tuple[str, ...]  # the phases drawn (the legend's colours)
    marks: tuple[str, ...]  # the marker kinds drawn
    failed: bool  # a compile that gave no graph is drawn
    run_end: bool  # the run's end is drawn
    nested: bool  # torch's spans are drawn (not only each compile's phases)
    compiles: CompileTable
    labels: Labels  # the phases' names (the kernel compile named for what ran: C++ or Triton)

    @property
    def width(self) -> int:
        return VIEW_WIDTH

    @property
    def rows(self) -> int:
        return sum(len(lane.rows) for lane in self.lanes)

    @property
    def legend_phases(self) -> tuple[tuple[str, str], ...]:
        return tuple((phase, self.labels[phase]) for phase in self.phases)

    @property
    def legend_marks(self) -> tuple[tuple[str, str], ...]:
        return tuple((kind, MARK_LABELS[kind]) for kind in self.marks)


def marker_kind(finding: Finding) -> str | None:
    """How a finding is marked on the timeline (None: not there)."""
    kind = Kind(finding.kind)
    if kind.is_fallback:
        return "fallback"
    return {Kind.GRAPH_BREAK: "break", Kind.RECOMPILE: "recompile", Kind.COMPILE_FAILURE: "failure"}.get(kind)


def compile_ids(finding: Finding, rank: int | None) -> list[str]:
    """The compile ids of a finding on one rank (its per-rank evidence), or on the one process."""
    per_rank = finding.evidence.per_rank if rank is not None else None
    if per_rank is not None and str(rank) in per_rank:
        ids = per_rank[str(rank)].compile_ids
    elif rank is None or rank in finding.ranks:
        ids = compile_ids_of(finding.evidence)
    else:
        ids = []
    return list(ids)


def span_phase(name: str, inside: Sequence[str], wait_phase: str = "cpp_compile") -> str:
    """The phase a span belongs to, by where it lies (`inside`: the names of the spans around it), as
    compile_time's phases split a compile: the C++ kernel compiles, inductor's compile, the rest of the backend
    (AOT autograd), and Dynamo around it."""
    names = {name, *inside}
    if name == "compile_file":
        return "cpp_compile"
    if name in CPP_SPANS:  # the wait for worker processes: C++ kernels on a CPU, Triton kernels on a GPU
        return wait_phase
    if "inductor_compile" in names:
        return "inductor"
    if "backend_compile" in names:
        return "aot_autograd"
    return "dynamo"


def _box(x: float, width: float, least: float, y: float, height: float, phase: str, title: str) -> Box:
    """A box at least `least` wide, kept inside the drawing (a compile at the run's very end included)."""
    x = min(max(x, 0.0), VIEW_WIDTH - least)
    width = min(max(width, least), VIEW_WIDTH - x)
    return Box(round(x, 1), round(y, 1), round(width, 1), height, phase, title)


def _inside(span: TraceSpan, outer: TraceSpan) -> bool:
    slack = 1e-6  # start_s is rebased in floating point
    return (
        outer.start_s - slack <= span.start_s and span.start_s + span.seconds <= outer.start_s + outer.seconds + slack
    )


def _span_title(span: TraceSpan, record: CompileRecord) -> str:
    if span.depth:  # the compile's id and start are on its outermost span, above
        return f"{span.name}: {span.seconds:.3f} s"
    return f"{span.name} ({record.compile_id}): {span.seconds:.3f} s at +{max(span.start_s, 0.0):.2f} s"


def _span_boxes(record: CompileRecord, scale: float, top: float) -> list[Box]:
    """The compile's spans, each at its nesting level, coloured by the spans around it: one pass over the spans
    in start order with the enclosing ones on a stack (a compile of thousands of spans costs no more per span)."""
    boxes = []
    wait_phase = "triton_compile" if record.phases.get("triton_compile", 0.0) > 0 else "cpp_compile"
    enclosing: list[TraceSpan] = []
    names: Counter[str] = Counter()  # the names on the stack, for span_phase
    for span in sorted(record.spans, key=lambda s: (s.start_s, s.depth)):
        while enclosing and not _inside(span, enclosing[-1]):
            names[enclosing.pop().name] -= 1
        width = span.seconds * scale
        if width >= MIN_SPAN_WIDTH or span.depth == 0:
            level = min(span.depth, MAX_LEVELS - 1)
            boxes.append(
                _box(
                    span.start_s * scale,
                    width,
                    MIN_COMPILE_WIDTH if span.depth == 0 else MIN_SPAN_WIDTH,
                    y=top + level * LEVEL_HEIGHT,
                    height=LEVEL_HEIGHT - 1,
                    phase=span_phase(span.name, [name for name, count in names.items() if count > 0], wait_phase),
                    title=_span_title(span, record),
                )
            )
        enclosing.append(span)
        names[span.name] += 1
    return boxes


def _phase_boxes(record: CompileRecord, start: float, scale: float, top: float, labels: Labels) -> list[Box]:
    """A compile without spans: its phases one after another, two levels high."""
    boxes: list[Box] = []
    x = start * scale
    for phase in PHASES:
        width = record.phases.get(phase, 0.0) * scale
        if width >= MIN_SPAN_WIDTH or (phase == "dynamo" and not boxes):
            boxes.append(
                _box(
                    x,
                    width,
                    MIN_COMPILE_WIDTH,
                    y=top,
                    height=2 * LEVEL_HEIGHT - 1,
                    phase=phase,
                    title=f"{labels[phase]} ({record.compile_id}): {record.phases.get(phase, 0.0):.3f} s",
                )
            )
        x += width
    return boxes


def spans_cover(record: CompileRecord) -> bool:
    """The compile's spans include one around the whole compile (torch's `dynamo` or `entire_frame_compile`);
    a trace cut down to some spans (the C++ compiles only) is drawn by its phases instead."""
    if record.start_s is None:
        return False
    end, slack = record.start_s + record.seconds, max(0.1 * record.seconds, 1e-3)
    return any(s.start_s <= record.start_s + slack and s.start_s + s.seconds >= end - slack for s in record.spans)


def _levels(frame: FrameCompileTime) -> int:
    depths = [s.depth for c in frame.compiles if spans_cover(c) for s in c.spans]
    return min(max(depths) + 1, MAX_LEVELS) if depths else 2


def _compile_boxes(frame: FrameCompileTime, scale: float, top: float, levels: int, labels: Labels) -> list[Box]:
    boxes = []
    for record in frame.compiles:
        if record.start_s is None:
            continue
        drawn = (
            _span_boxes(record, scale, top)
            if spans_cover(record)
            else _phase_boxes(record, record.start_s, scale, top, labels)
        )
        boxes += drawn
        if record.failed:  # outlined across every level: torch gave up on this compile
            boxes.append(
                _box(
                    record.start_s * scale,
                    record.seconds * scale,
                    MIN_COMPILE_WIDTH,
                    y=top,
                    height=levels * LEVEL_HEIGHT - 1,
                    phase="failed",
                    title=f"{record.compile_id}: torch gave up on this compile (no graph)",
                )
            )
    return boxes


def _band_title(run: list[Box], end: float, scale: float) -> str:
    what = "compiles torch gave up on (no graph)" if run[0].phase == "failed" else "spans"
    start_s, end_s = run[0].x / scale, end / scale
    return f"{len(run)} {what} from +{start_s:.2f} s to +{end_s:.2f} s (each one: the Perfetto file)"


def banded(boxes: list[Box], scale: float) -> list[Box]:
    """Boxes of one level and phase that touch on the axis drawn as one band: what a reader cannot tell apart is
    drawn once, so a row's drawing grows with the axis's width, not with its compiles (thousands of compiles of
    a long job). Outlines of failed compiles last, over the spans."""
    out: list[Box] = []
    run: list[Box] = []
    end = 0.0
    for box in sorted(boxes, key=lambda b: (b.phase == "failed", b.y, b.height, b.phase, b.x)):
        if (
            run
            and (box.y, box.height, box.phase) == (run[0].y, run[0].height, run[0].phase)
            and box.x <= end + BAND_GAP
        ):
            run.append(box)
            end = max(end, box.x + box.width)
            continue
        if run:
            out.append(_band(run, end, scale))
        run, end = [box], box.x + box.width
    if run:
        out.append(_band(run, end, scale))
    return out


def _band(run: list[Box], end: float, scale: float) -> Box:
    first = run[0]
    if len(run) == 1:
        return first
    return Box(first.x, first.y, round(end - first.x, 1), first.height, first.phase, _band_title(run, end, scale))


@dataclass(frozen=True)
class _Mark:
    kind: str
    finding: Finding
    x: float
    compile_id: str


def _clusters(marks: list[_Mark]) -> list[list[_Mark]]:
    """Marks of one finding whose compiles are too close to tell apart on the axis, grouped in one tab."""
    clusters: list[list[_Mark]] = []
    for mark in sorted(marks, key=lambda m: (m.finding.rank, m.kind, m.x)):
        last = clusters[-1][-1] if clusters else None
        same = last is not None and (last.finding.rank, last.kind) == (mark.finding.rank, mark.kind)
        if same and last is not None and mark.x - clusters[-1][0].x < _tab_width(mark.finding.rank, 99) + MARK_GAP:
            clusters[-1].append(mark)
        else:
            clusters.append([mark])
    return clusters


def _tab_width(rank: int, count: int) -> float:
    return round((len(_tab_label(rank, count)) * CHAR_WIDTH) + 12, 1)


def _tab_label(rank: int, count: int) -> str:
    return f"#{rank}" + (f" ×{count}" if count > 1 else "")


def _markers(marks: list[_Mark]) -> list[Marker]:
    """One tab per cluster, each in the first lane where it covers no other tab."""
    lane_ends: list[float] = []
    markers = []
    for cluster in sorted(_clusters(marks), key=lambda c: (c[0].x, c[0].finding.rank)):
        first, count = cluster[0], len(cluster)
        width = _tab_width(first.finding.rank, count)
        left = min(max(first.x - 4, 0.0), VIEW_WIDTH - width)
        lane = next((i for i, end in enumerate(lane_ends) if end + MARK_GAP <= left), len(lane_ends))
        if lane == len(lane_ends):
            lane_ends.append(0.0)
        lane_ends[lane] = left + width
        ids = ", ".join(m.compile_id for m in cluster)
        markers.append(
            Marker(
                kind=first.kind,
                rank=first.finding.rank,
                x=first.x,
                end=cluster[-1].x,
                left=round(left, 1),
                width=width,
                lane=lane,
                label=_tab_label(first.finding.rank, count),
                title=f"#{first.finding.rank} {first.finding.code} {first.kind} ({ids})",
            )
        )
    return markers


def _row(
    frame: FrameCompileTime, marks: list[_Mark], scale: float, run_end: float | None, labels: Labels
) -> TimelineRow:
    markers = _markers(marks)
    lanes = max((m.lane + 1 for m in markers), default=0)
    levels = _levels(frame)
    top = lanes * LANE_HEIGHT + (2 if lanes else 0)
    return TimelineRow(
        function=frame.function,
        where=frame.where,
        compiles=len(frame.compiles),
        seconds=frame.seconds,
        boxes=tuple(banded(_compile_boxes(frame, scale, top, levels, labels), scale)),
        markers=tuple(markers),
        lanes=lanes,
        levels=levels,
        run_end=round(run_end * scale, 1) if run_end else None,
    )


def _marks_by_compile(report: Report, rank: int | None) -> dict[str, list[tuple[str, Finding]]]:
    marks: dict[str, list[tuple[str, Finding]]] = {}
    for finding in report.findings:
        kind = marker_kind(finding)
        for compile_id in compile_ids(finding, rank) if kind else []:
            marks.setdefault(compile_id, []).append((kind or "break", finding))
    return marks


def _first_start(frame: FrameCompileTime) -> float:
    return min((c.start_s for c in frame.compiles if c.start_s is not None), default=float("inf"))


def _drawn(frames: list[FrameCompileTime], marked: set[str]) -> list[FrameCompileTime]:
    """The frames that get a row, in run order: all of them up to TIMELINE_ROWS, else those with a finding
    marked at one of their compiles first, then the costliest."""
    if len(frames) <= TIMELINE_ROWS:
        return frames
    has_mark = [any(c.compile_id in marked for c in frame.compiles) for frame in frames]
    kept = heapq.nsmallest(TIMELINE_ROWS, range(len(frames)), key=lambda i: (not has_mark[i], -frames[i].seconds))
    return [frames[i] for i in sorted(kept)]


def _lane(report: Report, label: str, rank: int | None, data: CompileTime, scale: float) -> tuple[Lane, list[Any]]:
    at_compile = _marks_by_compile(report, rank)
    frames = [
        f for f in sorted(data.frames, key=lambda f: (_first_start(f), f.where)) if _first_start(f) != float("inf")
    ]
    rows, lines = [], []
    for frame in _drawn(frames, set(at_compile)):
        marks = [
            _Mark(kind, finding, round(c.start_s * scale, 1), c.compile_id)
            for c in frame.compiles
            if c.start_s is not None
            for kind, finding in at_compile.get(c.compile_id, [])
        ]
        rows.append(_row(frame, marks, scale, data.run_s, data.labels))
    for frame in frames:
        marked = [(c, at_compile.get(c.compile_id, [])) for c in frame.compiles]
        lines += [_compile_line(frame, c, marks_at, rank, data.labels) for c, marks_at in marked]
    rest_s = sum(f.seconds for f in frames) - sum(row.seconds for row in rows)
    return Lane(label, tuple(rows), rest=len(frames) - len(rows), rest_s=rest_s), lines


def _compile_line(
    frame: FrameCompileTime, record: CompileRecord, marks: list[Any], rank: int | None, labels: Labels
) -> CompileLine:
    phases = " · ".join(f"{labels[p]} {record.phases[p]:.2f} s" for p in PHASES if record.phases.get(p, 0.0) >= 0.005)
    return CompileLine(
        function=frame.function,
        compile_id=record.compile_id,
        start_s=record.start_s,
        seconds=record.seconds,
        phases=phases,
        graph=not record.failed,
        findings=tuple(sorted({(finding.rank, kind) for kind, finding in marks})),
        rank=rank,
    )


def ticks(span: float) -> tuple[Tick, ...]:
    step = next((s for s in (0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600) if span / s <= 8), 1200)
    out, value = [], 0.0
    while value <= span + 1e-9:
        out.append(Tick(round(value / span * VIEW_WIDTH, 1), f"{value:g} s"))
        value += step
    return tuple(out)


def lanes_data(report: Report) -> list[tuple[str, int | None, CompileTime]]:
    """(label, rank, compile time) per lane: one per rank of a multi-rank report, else the one process."""
    if report.rank_compile_times:
        return [(f"rank {rank}", rank, data) for rank, data in report.rank_compile_times]
    return [("", None, report.compile_time)] if report.compile_time is not None else []


def _span_s(lanes: list[tuple[str, int | None, CompileTime]]) -> float:
    ends = [
        c.start_s + c.seconds for _, _, data in lanes for f in data.frames for c in f.compiles if c.start_s is not None
    ]
    return max(ends + [data.run_s or 0.0 for _, _, data in lanes], default=0.0)


def _timeline(lanes: tuple[Lane, ...], span: float, nested: bool, compiles: CompileTable, labels: Labels) -> Timeline:
    rows = [row for lane in lanes for row in lane.rows]
    drawn = {box.phase for row in rows for box in row.boxes}
    marked = {marker.kind for row in rows for marker in row.markers}
    return Timeline(
        lanes=lanes,
        ticks=ticks(span),
        phases=tuple(p for p in PHASES if p in drawn),
        marks=tuple(k for k in MARK_KINDS if k in marked),
        failed="failed" in drawn,
        run_end=any(row.run_end is not None for row in rows),
        nested=nested,
        compiles=compiles,
        labels=labels,
    )


def timeline(report: Report) -> Timeline | None:
    """The run's compiles on its wall-clock axis (None: no compile has a start time)."""
    lanes = lanes_data(report)
    span = _span_s(lanes)
    if not lanes or span <= 0:
        return None
    built = [_lane(report, label, rank, data, VIEW_WIDTH / span) for label, rank, data in lanes]
    nested = any(spans_cover(c) for _, _, data in lanes for f in data.frames for c in f.compiles)
    compiles = compile_table([line for _, lines in built for line in lines])
    labels = lanes[0][2].labels
    return _timeline(tuple(lane for lane, _ in built if lane.rows), span, nested, compiles, labels)
