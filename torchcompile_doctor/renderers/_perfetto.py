"""The HTML page's companion: the run's compile spans as a Chrome trace-event file (JSON), which Perfetto
(ui.perfetto.dev) and chrome://tracing open, to zoom into what the page's timeline can only sketch.

Its events are torch's own `chromium_event` spans of each compile (as the report carries them: name, start,
duration, compile id), one track per compiled function as on the page, times in microseconds after the run
started; each finding is an instant event on the track and at the time of the compile it names. A compile the
trace has no spans for is one event of its own. Pure: the CLI writes the file beside the page."""

from __future__ import annotations

import json
from typing import Any

from torchcompile_doctor.model.compile_time import CompileRecord, CompileTime, FrameCompileTime
from torchcompile_doctor.model.report import Report
from torchcompile_doctor.renderers._html_timeline import compile_ids, lanes_data, marker_kind, spans_cover
from torchcompile_doctor.renderers._shareable import Shareable

CATEGORY = "torch.compile"


def _us(seconds: float) -> float:
    return round(seconds * 1e6, 1)


def _span(name: str, start_s: float, seconds: float, track: tuple[int, int], compile_id: str) -> dict[str, Any]:
    """A complete ("X") event: a span on a track (pid, tid)."""
    pid, tid = track
    return {
        "name": name,
        "cat": CATEGORY,
        "ph": "X",
        "ts": _us(start_s),
        "dur": _us(seconds),
        "pid": pid,
        "tid": tid,
        "args": {"compile_id": compile_id},
    }


def _compile_events(record: CompileRecord, pid: int, tid: int) -> list[dict[str, Any]]:
    """torch's spans of the compile, and the compile as one event around them where no span covers it."""
    events = [_span(s.name, s.start_s, s.seconds, (pid, tid), record.compile_id) for s in record.spans]
    if record.start_s is None or spans_cover(record):
        return events
    name = f"compile {record.compile_id}" + ("" if record.spans else " (no spans in the trace)")
    return [_span(name, record.start_s, record.seconds, (pid, tid), record.compile_id), *events]


def _frame_events(frame: FrameCompileTime, pid: int, tid: int, shareable: Shareable) -> list[dict[str, Any]]:
    name = shareable.text(f"{frame.function} ({frame.where})")
    events: list[dict[str, Any]] = [
        {"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": name}},
        {"name": "thread_sort_index", "ph": "M", "pid": pid, "tid": tid, "args": {"sort_index": tid}},
    ]
    for record in frame.compiles:
        events += _compile_events(record, pid, tid)
    return events


def _finding_events(
    report: Report, rank: int | None, tracks: dict[str, tuple[int, float]], pid: int, shareable: Shareable
) -> list[dict[str, Any]]:
    """Each finding an instant ("i") event on the track of the compile it names, when that compile ran."""
    events = []
    for finding in report.findings:
        kind = marker_kind(finding)
        for compile_id in compile_ids(finding, rank) if kind else []:
            if compile_id not in tracks:
                continue
            tid, start = tracks[compile_id]
            args = {"finding": shareable.text(finding.title), "compile_id": compile_id}
            name = f"#{finding.rank} {finding.code} {kind}"
            events.append(
                {
                    "name": name,
                    "cat": "finding",
                    "ph": "i",
                    "s": "t",
                    "ts": _us(start),
                    "pid": pid,
                    "tid": tid,
                    "args": args,
                }
            )
    return events


def _lane_events(
    report: Report, label: str, rank: int | None, data: CompileTime, shareable: Shareable
) -> list[dict[str, Any]]:
    pid = rank or 0
    events: list[dict[str, Any]] = [{"name": "process_name", "ph": "M", "pid": pid, "args": {"name": label}}]
    tracks: dict[str, tuple[int, float]] = {}
    frames = sorted(data.frames, key=lambda f: min((c.start_s for c in f.compiles if c.start_s is not None), default=0))
    for tid, frame in enumerate(frames, start=1):
        events += _frame_events(frame, pid, tid, shareable)
        tracks.update({c.compile_id: (tid, c.start_s) for c in frame.compiles if c.start_s is not None})
    return events + _finding_events(report, rank, tracks, pid, shareable)


def perfetto_trace(report: Report) -> str | None:
    """The trace-event JSON of the report's compiles, or None when its trace logged no compile spans."""
    lanes = lanes_data(report)
    if not any(c.spans for _, _, data in lanes for frame in data.frames for c in frame.compiles):
        return None
    shareable = Shareable(report.environment)
    target = shareable.text(report.target)
    events = []
    for label, rank, data in lanes:
        events += _lane_events(report, label or target, rank, data, shareable)
    earliest = min((e["ts"] for e in events if "ts" in e), default=0.0)
    if earliest < 0:  # a bare trace's clock starts at its first compile; torch's outer span begins a moment earlier
        for event in events:
            if "ts" in event:
                event["ts"] = round(event["ts"] - earliest, 1)
    other = {"target": target, "torch": report.torch_version, "tool": f"torchcompile-doctor {report.tool_version}"}
    return json.dumps({"traceEvents": events, "displayTimeUnit": "ms", "otherData": other}, separators=(",", ":"))
