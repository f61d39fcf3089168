"""A job's text log: the stderr of a run made with `TORCH_LOGS` (e.g. "+cudagraphs,perf_hints,graph_breaks,
recompiles"), as a cluster or CI keeps it, read into the events a live capture records (events/messages/).

What a line can be:

    [outer prefix][rank0]:V1124 19:56:54.304000 442 torch/_inductor/scheduler.py:6545] [0/0] [__cudagraphs] msg
    /path/torch/_inductor/compile_fx.py:322: UserWarning: message        (then the warned line, indented)
    Traceback (most recent call last): ...                                (then frames, then `Error: message`)
    anything else: the program's own output, read past

Torch writes a record of several lines with its prefix on each line; consecutive lines with one prefix are one
record unless a line starts a message of its own (`starts_a_record`). An outer prefix is read past: a cluster
logger's timestamp (ISO 8601, bracketed or not, and a container runtime's `stdout F`) and torchrun's
`[rank0]:` / `[default0]:`, which tells the rank. A rank whose process id changes starts another run (several
runs appended to one file); lines without a process id (warnings, tracebacks) belong to the run around them,
and warnings printed just before a new run's first record to that run. The file is read line by line: memory
holds one record, one traceback and the events, not the file. Nothing read is executed.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from torchcompile_doctor.events.messages import LogMessage, MessageReader, ShownWarning, starts_a_record
from torchcompile_doctor.events.messages.exceptions import overwritten_output
from torchcompile_doctor.events.model import CompileId, EventLog, LogHealth, StackFrame, TargetExit
from torchcompile_doctor.events.parsers.graph_break_reason import parse_stack

MAX_LINE_BYTES = 1024 * 1024  # a longer line is counted as bad and skipped
MAX_RECORD_LINES = 10_000  # a record's or a traceback's lines beyond this are dropped (memory stays flat)

_TIMESTAMP = r"\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\]?\s+(?:(?:stdout|stderr) [FP] )?"
# one match per line: the outer prefix (a timestamp, torchrun's rank), then torch's glog prefix when it is one
_LINE = re.compile(
    rf"^(?:{_TIMESTAMP})?(?:\[(?:rank|default)(?P<rank>\d+)\]:\s?)?(?:(?P<level>[VIWEC])\d{{4}} "
    r"(?P<time>\d\d:\d\d:\d\d\.\d+) +(?P<pid>\d+) (?P<file>[^\s:\]]+):\d+\]"
    r"(?: \[(?P<trace>(?!__)[^\]]*)\])?(?: \[__(?P<artifact>\w+)\])?(?: (?P<message>.*))?$)?"
)
_LEVELS = {"V": "DEBUG", "I": "INFO", "W": "WARNING", "E": "ERROR", "C": "CRITICAL"}
# `file.py:12: UserWarning: message`, as warnings.formatwarning writes it
_WARNING = re.compile(
    r"^(?P<file>(?:[A-Za-z]:)?[^\s:][^:]*\.py):(?P<line>\d+): (?P<category>[A-Z]\w*): (?P<message>.*)"
)

_EXCEPTION = re.compile(r"^(?P<type>[A-Za-z_][\w.]*)(?:: (?P<message>.*))?$")
_CHAINED = ("During handling of the above exception", "The above exception was the direct cause")


@dataclass
class LoggedProcess:
    """One process of the log: its rank (None: no rank prefix), its process id, which run of the file it
    belongs to (0 for the first; a rank whose process id changes starts the next), and its events."""

    run: int
    rank: int | None
    pid: int | None
    log: EventLog = field(default_factory=EventLog)


@dataclass
class _Record:
    key: tuple[Any, ...]
    message: LogMessage
    lines: list[str]


@dataclass
class _Traceback:
    lines: list[str] = field(default_factory=list)
    exception: tuple[str, list[str]] | None = None  # (type, message lines) once the exception line came


class _Process:
    """The state of one rank's current run."""

    def __init__(self, run: int, rank: int | None, pid: int | None, health: LogHealth) -> None:
        self.logged = LoggedProcess(run, rank, pid)
        self.reader = MessageReader(health)
        self.record: _Record | None = None
        self.traceback: _Traceback | None = None
        self.last_exception: tuple[str, str, tuple[StackFrame, ...]] | None = None
        self.waiting_warnings: list[ShownWarning] = []  # since this rank's last torch record

    def add(self, events: list[object]) -> None:
        for event in events:
            self.logged.log.add(event)

    def flush_record(self) -> None:
        if self.record is not None:
            record, self.record = self.record, None
            m = record.message
            self.add(self.reader.log(LogMessage(m.module, m.artifact, m.level, m.compile_id, "\n".join(record.lines))))

    def take_warnings(self) -> None:
        for shown in self.waiting_warnings:
            self.add(self.reader.warning(shown))
        self.waiting_warnings = []

    def finish_traceback(self, health: LogHealth, at_end: bool) -> None:
        traceback, self.traceback = self.traceback, None
        if traceback is None:
            return
        if traceback.exception is None:
            health.truncated = health.truncated or at_end  # the file ends inside a traceback
            return
        kind, message_lines = traceback.exception
        message = "\n".join(message_lines)
        stack = parse_stack(traceback.lines)
        overwritten = overwritten_output(message, stack)
        if overwritten is not None:
            self.add([overwritten])
        self.last_exception = (kind, message, stack)

    def close(self, health: LogHealth) -> LoggedProcess:
        self.flush_record()
        self.finish_traceback(health, at_end=True)
        self.take_warnings()
        self.add(self.reader.close())
        if self.last_exception is not None:  # the run's last word was an uncaught exception: Python exits 1
            kind, message, stack = self.last_exception
            self.add([TargetExit("exception", 1, kind, message, stack)])
        return self.logged


@functools.lru_cache(maxsize=4096)
def _module_of(file: str) -> str:
    return file.removesuffix(".py").replace("/", ".")


@functools.lru_cache(maxsize=4096)
def _compile_id(trace: str | None) -> CompileId | None:
    """`[0/1_2]` (attempt 2 of compile 0/1) names compile 0/1."""
    return CompileId.parse(trace.partition("_")[0]) if trace else None


class TextLogReader:
    """Feeds lines (`line`) and gives the processes (`close`)."""

    def __init__(self, health: LogHealth) -> None:
        self.health = health
        self._current: dict[int | None, _Process] = {}
        self._runs: dict[int | None, int] = {}  # per rank: how many runs it has started
        self._done: list[LoggedProcess] = []

    def _process(self, rank: int | None, pid: int | None) -> _Process:
        process = self._current.get(rank)
        if process is not None and (pid is None or process.logged.pid in (None, pid)):
            if pid is not None:
                process.logged.pid = pid
            return process
        waiting: list[ShownWarning] = []
        if process is not None:  # the same rank, another process: the next run
            waiting, process.waiting_warnings = process.waiting_warnings, []
            self._done.append(process.close(self.health))
        run = self._runs.get(rank, -1) + 1
        self._runs[rank] = run
        fresh = _Process(run, rank, pid, self.health)
        fresh.waiting_warnings = waiting
        self._current[rank] = fresh
        return fresh

    def line(self, text: str) -> None:
        match = _LINE.match(text)
        assert match is not None  # every part is optional
        rank_text, level = match.group("rank", "level")
        rank = int(rank_text) if rank_text is not None else None
        if level is not None:
            self._torch_record(rank, match)
            return
        text = text[match.end() :]
        process = self._current.get(rank) or self._process(rank, None)
        if process.record is not None:
            process.flush_record()
        if process.traceback is not None and self._traceback_line(process, text):
            return
        if text.startswith("Traceback (most recent call last):"):
            process.traceback = _Traceback()
            return
        warned = _WARNING.match(text) if ".py:" in text else None  # most lines are the program's own output
        if warned is not None:
            shown = ShownWarning(warned["category"], warned["message"], warned["file"], int(warned["line"]))
            process.waiting_warnings.append(shown)

    def _torch_record(self, rank: int | None, glog: re.Match[str]) -> None:
        level, time, pid, file, trace, artifact, message = glog.group(
            "level", "time", "pid", "file", "trace", "artifact", "message"
        )
        process = self._process(rank, int(pid))
        if process.traceback is not None:
            process.finish_traceback(self.health, at_end=False)
        process.last_exception = None  # torch logged on after it: the exception did not end the run
        if process.waiting_warnings:
            process.take_warnings()
        message = message or ""
        key = (level, time, pid, file, trace, artifact)
        record = process.record
        if record is not None and record.key == key and not starts_a_record(message, artifact):
            if len(record.lines) < MAX_RECORD_LINES:
                record.lines.append(message)
            return
        process.flush_record()
        log_message = LogMessage(_module_of(file), artifact, _LEVELS[level], _compile_id(trace), "")
        process.record = _Record(key, log_message, [message])

    def _traceback_line(self, process: _Process, text: str) -> bool:
        """Feed a line to the traceback being read; False when the line is no part of it (it ended)."""
        traceback = process.traceback
        assert traceback is not None
        if traceback.exception is None:
            if text.startswith(" ") or not text.strip():
                if len(traceback.lines) < MAX_RECORD_LINES:
                    traceback.lines.append(text)
                return True
            exception = _EXCEPTION.match(text)
            if exception is None:  # not a traceback after all
                process.traceback = None
                return False
            traceback.exception = (exception["type"], [exception["message"] or ""])
            return True
        ends = not text.strip() or text.startswith(("Traceback (", *_CHAINED)) or _WARNING.match(text)
        if ends or len(traceback.exception[1]) >= MAX_RECORD_LINES:
            process.finish_traceback(self.health, at_end=False)
            return False
        traceback.exception[1].append(text)
        return True

    def close(self) -> list[LoggedProcess]:
        done = self._done + [process.close(self.health) for process in self._current.values()]
        self._current, self._done = {}, []
        return sorted(done, key=lambda p: (p.run, -1 if p.rank is None else p.rank))


def _lines(stream: BinaryIO, health: LogHealth) -> Iterator[str]:
    """Each line decoded (undecodable bytes replaced and the line counted bad); a line over MAX_LINE_BYTES is
    read past in pieces, never held whole, and counted bad."""
    while raw := stream.readline(MAX_LINE_BYTES + 1):
        health.lines += 1
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            health.bad_lines += 1
            while (rest := stream.readline(MAX_LINE_BYTES)) and not rest.endswith(b"\n"):
                pass
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            health.bad_lines += 1
            text = raw.decode("utf-8", errors="replace")
        yield text.rstrip("\r\n")


def read_text_log(stream: BinaryIO) -> tuple[list[LoggedProcess], LogHealth]:
    """The processes of a text log, in run order then rank order, and what could not be read."""
    health = LogHealth()
    reader = TextLogReader(health)
    for text in _lines(stream, health):
        reader.line(text)
    return reader.close(), health
