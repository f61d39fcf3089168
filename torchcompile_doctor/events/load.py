"""Load a capture folder (or a TORCH_TRACE dir, or one trace file) into EventLogs: TORCH_TRACE files + side
channel, by the names capture_layout.py gives them.

`load_ranks` keeps distributed ranks apart: torch names each rank's file
`dedicated_log_torch_trace_rank_{rank}_{random}.log` when a process group was up when it opened the file;
otherwise the rank comes from the records' envelopes (`"rank": N`), else from the doctor's per-rank side
channel (`doctor_events_rank_N.jsonl`, matched by process id). `load_artifacts` is its special case of one
process: everything read as one log, which is what `load_ranks` gives (as rank 0) when no rank is named.
`read_trace_files`, `read_side_channel_file` and `envelope_pid` are the pieces events/processes.py builds a
program's processes from. `refuse_nothing_read` is the one place that decides that what was given holds nothing
to read (report, check and guards alike). Nothing read is run or imported.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import BinaryIO

from torchcompile_doctor.capture_layout import (
    EXPERIMENTS,
    RANK_SIDE_CHANNEL,
    RANK_TRACE_FILE,
    SIDE_CHANNEL,
    TRACE_FILE_PATTERNS,
)
from torchcompile_doctor.errors import DoctorError
from torchcompile_doctor.events.model import CompileId, EventLog
from torchcompile_doctor.events.parsers import IGNORED_KINDS, NOT_AN_EVENT, Parser, parser_table
from torchcompile_doctor.events.parsers.common import forget_shared
from torchcompile_doctor.events.reader import Record, read_records
from torchcompile_doctor.events.sidechannel import read_side_channel

_ENVELOPE_PID = re.compile(rb"^[VIWEC]\d{4} \d\d:\d\d:\d\d\.\d+ +(\d+) ")


def trace_files(path: Path) -> list[Path]:
    """The trace files of a dir (`*.log`, and `*.log.gz` as a job's artifacts keep them), or the file itself;
    not those of the experiments a `--try-fixes` capture keeps beside it (runs of their own)."""
    if path.is_file():
        return [path]
    found = (p for pattern in TRACE_FILE_PATTERNS for p in path.rglob(pattern) if p.is_file())
    return sorted(p for p in found if p.relative_to(path).parts[0] != EXPERIMENTS)


def open_log(path: Path) -> BinaryIO:
    """A log file for reading as bytes, gunzipped as it is read when it is gzipped (by its magic bytes)."""
    with path.open("rb") as probe:
        gzipped = probe.read(2) == b"\x1f\x8b"
    return gzip.open(path, "rb") if gzipped else path.open("rb")  # type: ignore[return-value]


def load_trace(stream: BinaryIO, log: EventLog, parsers: list[Parser] | None = None) -> int | None:
    """Parse one TORCH_TRACE stream into `log` (appending); returns the first rank its envelopes name."""
    by_kind = parser_table() if parsers is None else {kind: parser for parser in parsers for kind in parser.kinds}
    strings: dict[int, str] = {}
    rank: int | None = None
    sessions = _Sessions()
    wants = lambda kind: kind in by_kind and by_kind[kind].needs_payload  # noqa: E731
    for record in read_records(stream, log.health, wants, _passes_over(by_kind)):
        if rank is None and type(record.meta.get("rank")) is int:
            rank = record.meta["rank"]
        if record.passed_over:  # a payload its parser would find nothing in (an instant span)
            continue
        if record.kind == "str":
            interned = record.meta.get("str")
            if isinstance(interned, list) and len(interned) == 2 and isinstance(interned[1], int):
                strings[interned[1]] = str(interned[0])
            continue
        parser = by_kind.get(record.kind)
        if parser is None:
            if record.kind not in IGNORED_KINDS and not record.kind.startswith("artifact"):
                log.health.unknown_kinds += 1
            continue
        try:
            event = parser.parse(record, strings)
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError, json.JSONDecodeError):
            event = None
        if event is None:
            log.health.parse_errors += 1
        elif event is not NOT_AN_EVENT:
            log.add(sessions.tag(record, event))
    return rank


def _passes_over(by_kind: dict[str, Parser]) -> Callable[[str, bytes], bool] | None:
    """The reader's test of a wanted payload's end: its parser's `passes_over`, where it has one."""
    tests = {kind: parser.passes_over for kind, parser in by_kind.items() if parser.passes_over is not None}
    if not tests:
        return None
    return lambda kind, end: kind in tests and tests[kind](end)


class _Sessions:
    """Counts `torch._dynamo.reset()` calls from the trace itself: after a reset Dynamo numbers compiles from
    0/0 again, so a compile that starts with an id this session already started opens the next session.
    Events of later sessions get their session in their compile id (old captures re-read the same way).
    The same start written twice (one record copied by an interleaved writer: the same envelope, to the
    millisecond, process and source line) is no restart: a compile between a start and a reset takes longer."""

    def __init__(self) -> None:
        self.session = 0
        self._started: dict[CompileId, bytes] = {}  # each start's envelope (its metadata is not kept: a big log
        # starts thousands of compiles)

    def tag(self, record: Record, event: object) -> object:
        compile_id = getattr(event, "compile_id", None)
        if not isinstance(compile_id, CompileId):
            return event
        # compiled autograd numbers its own graphs; only Dynamo's frame compiles count
        if record.kind == "dynamo_start" and "compiled_autograd_id" not in record.meta:
            if compile_id in self._started and self._started[compile_id] != record.envelope:
                self.session += 1
                self._started = {}
            self._started[compile_id] = record.envelope
        return replace(event, compile_id=replace(compile_id, session=self.session)) if self.session else event  # type: ignore[type-var]


def read_side_channel_file(file: Path) -> EventLog:
    """One side-channel file's events."""
    log = EventLog()
    with file.open("rb") as stream:
        for event in read_side_channel(stream, log.health):
            log.add(event)
    return log


@dataclass
class TraceFile:
    """One trace file read: its events, and the rank its name or its envelopes give (None: no rank)."""

    path: Path
    rank: int | None  # from the file name, else from the records' envelopes
    log: EventLog


def read_trace_files(path: Path) -> list[TraceFile]:
    """Every trace file under `path` (or `path` itself), each read into a log of its own; what the files share
    (a guard set, a graph, a frame) is one object across them, and the tables that found it go with the read."""
    loaded = []
    try:
        for file in trace_files(path):
            log = EventLog()
            with open_log(file) as stream:
                envelope_rank = load_trace(stream, log)
            named = RANK_TRACE_FILE.match(file.name)
            loaded.append(TraceFile(file, int(named.group(1)) if named else envelope_rank, log))
    finally:
        forget_shared()
    return loaded


def _plain_side_channel(path: Path) -> EventLog | None:
    side = path / SIDE_CHANNEL if path.is_dir() else None
    return read_side_channel_file(side) if side is not None and side.is_file() else None


def _one_process(traces: list[TraceFile], side: EventLog | None) -> EventLog:
    """Every trace file's events, then the side channel's, as one process."""
    log = EventLog()
    for trace in traces:
        log.extend(trace.log)
    if side is not None:
        log.extend(side)
    return log


def load_artifacts(path: Path) -> EventLog:
    """Every trace file under `path` (or `path` itself) and the side channel beside them, as one process:
    what `load_ranks` gives for a capture that names no rank."""
    return _one_process(read_trace_files(path), _plain_side_channel(path))


@dataclass
class RankLogs:
    """One EventLog per rank (sorted by rank), and the trace files whose rank could not be told."""

    logs: dict[int, EventLog]
    unranked: list[Path] = field(default_factory=list)

    @property
    def ranks(self) -> list[int]:
        return list(self.logs)


def trace_pids(path: Path) -> set[int]:
    """The process ids that wrote the trace files under `path` (their envelopes name them)."""
    return {pid for file in trace_files(path) if (pid := envelope_pid(file)) is not None}


def envelope_pid(file: Path) -> int | None:
    """The process id the first envelope of a trace file names (None: it names none)."""
    with open_log(file) as stream:
        match = _ENVELOPE_PID.match(stream.readline(4096))
    return int(match.group(1)) if match else None


def _rank_side_channels(path: Path) -> dict[int, EventLog]:
    sides: dict[int, EventLog] = {}
    if path.is_dir():
        for side in sorted(path.iterdir()):
            match = RANK_SIDE_CHANNEL.match(side.name)
            if match and side.is_file():
                sides.setdefault(int(match.group(1)), EventLog()).extend(read_side_channel_file(side))
    return sides


def load_ranks(path: Path) -> RankLogs:
    """The trace files and side channels under `path`, grouped by distributed rank; one process (no rank
    anywhere) is read as `load_artifacts` reads it, as rank 0."""
    traces = read_trace_files(path)
    rank_sides = _rank_side_channels(path)
    plain_side = _plain_side_channel(path)
    if not rank_sides and all(trace.rank is None for trace in traces):
        return RankLogs({0: _one_process(traces, plain_side)})

    rank_of_pid = {info.pid: rank for rank, side in rank_sides.items() for info in side.bootstrap if info.pid}
    logs: dict[int, EventLog] = {}
    unranked: list[Path] = []
    for trace in traces:
        rank = trace.rank
        if rank is None and (pid := envelope_pid(trace.path)) is not None:
            rank = rank_of_pid.get(pid)
        if rank is None:
            unranked.append(trace.path)
            continue
        logs.setdefault(rank, EventLog()).extend(trace.log)
    for rank, side in rank_sides.items():
        logs.setdefault(rank, EventLog()).extend(side)
    logs = dict(sorted(logs.items()))
    if plain_side is not None and logs:  # the capture child's own record (e.g. it spawned the ranks itself)
        for index, log in enumerate(logs.values()):
            for name in ("bootstrap", "backends", "warnings", "target_exits", "call_sites"):
                getattr(log, name).extend(getattr(plain_side, name))
            if index == 0:
                log.health.add(plain_side.health)
    return RankLogs(logs, unranked)


def refuse_nothing_read(logs: Iterable[EventLog], paths: Sequence[Path]) -> None:
    """Nothing read is never a pass: when no log holds a record torch (or the capture) wrote (an empty folder, a
    file of random bytes, an empty log, a log of only other programs' lines), a DoctorError in one line."""
    if all(log.holds_nothing for log in logs):
        raise DoctorError(nothing_to_read(paths))


def nothing_to_read(paths: Sequence[Path]) -> str:
    """The one line that refuses what holds nothing to read, naming what was given."""
    return f"nothing to read in {', '.join(map(str, paths))}: no trace, no capture, no log records"
