"""A job's text logs (events/textlog.py) as the rest of the doctor takes logs: per run of the file, one EventLog
per rank, alone or added to the TORCH_TRACE logs of the same run. Where a text log and a trace (or the capture's
side channel) describe the same thing, it is counted once: the trace's record of a graph break or a recompile
stands, and the log adds what the trace lacks (CUDA graphs, warnings, perf hints, how the program ended).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path

from torchcompile_doctor.events.load import open_log
from torchcompile_doctor.events.model import EventLog, LogHealth
from torchcompile_doctor.events.textlog import LoggedProcess, read_text_log

_SNIFF_LINES = 2000
_GLOG = re.compile(rb"(?:^|\]:\s?|\s)[VIWEC]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ [^\]\s]+\] ?(?P<next>.)?")
_TEXT_SIGNS = re.compile(rb"^(?:Traceback \(most recent call last\):|\S+\.py:\d+: [A-Z]\w*: )")


def is_text_log(path: Path) -> bool:
    """A text log, not a TORCH_TRACE file: its first torch record is a message, not a JSON envelope."""
    if not path.is_file():
        return False
    with open_log(path) as stream:
        for _ in range(_SNIFF_LINES):
            line = stream.readline(64 * 1024)
            if not line:
                break
            glog = _GLOG.search(line[:512])
            if glog is not None:
                return glog["next"] != b"{"
            if _TEXT_SIGNS.search(line):
                return True
        return stream.tell() > 0 if hasattr(stream, "tell") else False


@dataclass
class LoggedRun:
    """One run of a job's logs: its processes' events by rank (0 for a log without rank prefixes) and their
    process ids."""

    index: int
    logs: dict[int, EventLog]
    pids: frozenset[int]


def _runs_of(processes: list[LoggedProcess], file_rank: int) -> dict[int, dict[int, LoggedProcess]]:
    """{run: {rank: process}}; lines without a rank prefix in a log whose other lines have one are the
    launcher's (torchrun's own messages), not a rank's."""
    ranked = any(process.rank is not None for process in processes)
    runs: dict[int, dict[int, LoggedProcess]] = {}
    for process in processes:
        if process.rank is None and (ranked or not process.log.has_events):
            continue
        rank = process.rank if process.rank is not None else file_rank
        runs.setdefault(process.run, {})[rank] = process
    return runs


def load_text_logs(paths: Sequence[Path]) -> list[LoggedRun]:
    """The runs of the logs, in order. Several files whose lines carry no rank prefix are read as one rank
    each, in the order given (torchrun's `--log-dir` keeps one file per rank). What the reader could not use
    is counted on the first run's first rank."""
    runs: dict[int, LoggedRun] = {}
    health = LogHealth()
    for number, path in enumerate(paths):
        with open_log(path) as stream:
            processes, file_health = read_text_log(stream)
        health.add(file_health)
        for index, by_rank in sorted(_runs_of(processes, number).items()):
            run = runs.setdefault(index, LoggedRun(index, {}, frozenset()))
            for rank, process in sorted(by_rank.items()):
                run.logs.setdefault(rank, EventLog()).extend(process.log)
                run.pids |= {process.pid} if process.pid is not None else set()
    ordered = [runs[index] for index in sorted(runs)] or [LoggedRun(0, {0: EventLog()}, frozenset())]
    first = ordered[0].logs
    first[min(first)].health.add(health)
    return ordered


# what identifies an event of a kind a trace (or the side channel) and a text log can both record
_SAME: dict[str, Callable[[object], object]] = {
    "graph_breaks": lambda e: (e.compile_id, e.file, e.line, e.gb_type),  # type: ignore[attr-defined]
    "recompiles": lambda e: e.compile_id,  # type: ignore[attr-defined]
    "perf_hints": lambda e: (e.message, e.compile_id),  # type: ignore[attr-defined]
}
_COUNTED = frozenset(
    {"cudagraph_skips", "cudagraph_recordings", "cudagraph_runs", "torch_warnings"}
)  # events that carry a count: the same event seen twice keeps the larger count


def _key(name: str, event: object) -> object:
    if name in _SAME:
        return _SAME[name](event)
    return replace(event, count=1) if name in _COUNTED else event  # type: ignore[type-var]


def add_described_once(base: EventLog, extra: EventLog) -> None:
    """Add `extra`'s events to `base`, each thing once: an event `base` already has (by what identifies it) is
    left out; how the program ended is `base`'s when it recorded it."""
    for f in fields(EventLog):
        name = f.name
        if name == "health":
            continue
        mine, theirs = getattr(base, name), getattr(extra, name)
        if not theirs or (name == "target_exits" and mine):
            continue
        index = {_key(name, event): i for i, event in enumerate(mine)}
        for event in theirs:
            key = _key(name, event)
            if key not in index:
                index[key] = len(mine)
                mine.append(event)
            elif name in _COUNTED and event.count > mine[index[key]].count:
                mine[index[key]] = event
    base.health.add(extra.health)


def run_for_pids(runs: list[LoggedRun], pids: set[int]) -> LoggedRun | None:
    """The run of the logs made by the processes `pids` (the trace's), or the only run when either side names no
    process (then they cannot be told apart); None when no run is theirs (a log of another run)."""
    matching = [run for run in runs if run.pids & pids]
    if matching:
        return matching[-1]
    if len(runs) != 1:
        return None
    return runs[0] if not runs[0].pids or not pids else None
