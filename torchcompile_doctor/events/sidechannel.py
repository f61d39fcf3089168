"""The doctor's side channel: JSON lines the capture child writes next to the TORCH_TRACE files.

It carries what TORCH_TRACE does not: how the target ended, perf hints, the backends used,
`torch._dynamo.explain` results, and torch's messages to its loggers and to `warnings` (CUDA graphs, TF32),
which the same parsers read as they read a job's text log (events/messages/). This module owns the channel's
lines: its event names (`EventName`), the writer the child uses (`SideChannel`) and the reader
(`read_side_channel`, one parser per event name, tolerant like the trace reader); its file names are the
capture folder's (capture_layout.py). The child imports it, so it imports nothing heavy.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from enum import StrEnum
from typing import Any, BinaryIO

from torchcompile_doctor.capture_layout import process_side_channel
from torchcompile_doctor.events.messages import LogMessage, MessageReader, ShownWarning
from torchcompile_doctor.events.messages.exceptions import overwritten_output, traced_frames
from torchcompile_doctor.events.messages.hints import perf_hint
from torchcompile_doctor.events.model import (
    BackendUse,
    BootstrapInfo,
    CallCount,
    CallSite,
    CompileId,
    ExplainResult,
    GuardOverhead,
    LogHealth,
    StackFrame,
    TargetExit,
    Warning_,
)


class EventName(StrEnum):
    """The `"event"` of each side-channel line, and the model event it is read back as."""

    BOOTSTRAP = "bootstrap"  # BootstrapInfo: versions, target, library roots, pid
    BACKEND = "backend"  # BackendUse: a torch.compile call: backend requested and used, what it compiled, from where
    CALL_SITE = "call_site"  # CallSite: a user line that called a compiled plain function
    GUARD_OVERHEAD = "guard_overhead"  # GuardOverhead: measured per-call time (doctor guards)
    WARNING = "warning"  # Warning_: something the capture could not do
    PERF_HINT = "perf_hint"  # PerfHint: a `perf_hints` log record
    EXPLAIN = "explain"  # ExplainResult: torch._dynamo.explain on a function target
    TARGET_EXIT = "target_exit"  # TargetExit: how the target ended, as the child saw it
    CALL_COUNT = "call_count"  # CallCount: a compiled function's calls, and the last one Dynamo compiled in
    TORCH_LOG = "torch_log"  # a record of one of torch's loggers (cudagraphs): read by events/messages/
    TORCH_WARNING = "torch_warning"  # a warning Python showed from torch's compile stack (TF32): events/messages/


class SideChannel:
    """The writer: append-only JSON lines, flushed per event so a crash loses nothing written before it."""

    def __init__(self, path: str, follow_forks: bool = False) -> None:
        self._path = path
        self._file = open(path, "a", encoding="utf-8")  # noqa: SIM115 - closed in close()
        self._lock = threading.Lock()
        self._bootstrap: dict[str, Any] | None = None
        if follow_forks:  # a capture child: a process forked from it writes a channel of its own
            os.register_at_fork(after_in_child=self._forked)

    def _forked(self) -> None:
        """In a forked child: its events go to its own file, which starts with the parent's bootstrap record."""
        self._lock = threading.Lock()  # another thread may have held it at the fork
        if self._file.closed:
            return
        self._file = open(  # noqa: SIM115 - closed in close(), or when the process ends
            os.path.join(os.path.dirname(self._path), process_side_channel(os.getpid())), "a", encoding="utf-8"
        )
        if self._bootstrap is not None:
            forked = {"pid": os.getpid(), "parent_pid": os.getppid(), "role": "forked"}
            self.write(EventName.BOOTSTRAP, **{**self._bootstrap, **forked})

    def write(self, event: EventName, **fields: object) -> None:
        if event == EventName.BOOTSTRAP:
            self._bootstrap = fields
        # "t": when it happened (the run's start and end place compiles on the wall-clock axis)
        line = json.dumps({"event": str(event), "t": time.time(), **fields}, default=str)
        with self._lock:
            self._file.write(line + "\n")
            self._file.flush()

    def close(self) -> None:
        self._file.close()


def _frames(items: object) -> tuple[StackFrame, ...]:
    frames = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and isinstance(item.get("file"), str) and isinstance(item.get("line"), int):
            frames.append(
                StackFrame(item["file"], item["line"], str(item.get("function", "?")), str(item.get("code", "")))
            )
    return tuple(frames)


def _opt_str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _opt_int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _opt_float(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


_PARSERS: dict[str, Callable[[dict[str, Any]], object]] = {  # keyed by EventName (a str)
    EventName.BOOTSTRAP: lambda d: BootstrapInfo(
        torch_version=str(d.get("torch_version", "")),
        python_version=str(d.get("python_version", "")),
        target=str(d.get("target", "")),
        library_roots=tuple(str(p) for p in d.get("library_roots") or [] if isinstance(p, str)),
        backend_override=_opt_str(d.get("backend_override")),
        pid=_opt_int(d.get("pid")),
        parent_pid=_opt_int(d.get("parent_pid")),
        role=str(d.get("role") or "target"),
        wall_time=_opt_float(d.get("t")),
    ),
    EventName.BACKEND: lambda d: BackendUse(
        requested=str(d["requested"]),
        used=str(d["used"]),
        compiled=_opt_str(d.get("compiled")),
        compiled_kind=_opt_str(d.get("compiled_kind")),
        file=_opt_str(d.get("file")),
        line=_opt_int(d.get("line")),
        dynamo_disabled_by=_opt_str(d.get("dynamo_disabled_by")),
        dynamic=d["dynamic"] if isinstance(d.get("dynamic"), bool) else None,
        function_file=_opt_str(d.get("function_file")),
        function_line=_opt_int(d.get("function_line")),
    ),
    EventName.CALL_SITE: lambda d: CallSite(
        function_file=str(d["function_file"]),
        function_line=int(d["function_line"]),
        function=str(d["function"]),
        file=str(d["file"]),
        line=int(d["line"]),
        caller=str(d.get("caller", "?")),
        column=_opt_int(d.get("column")),
        end_line=_opt_int(d.get("end_line")),
        end_column=_opt_int(d.get("end_column")),
    ),
    EventName.CALL_COUNT: lambda d: CallCount(
        function_file=str(d["function_file"]),
        function_line=int(d["function_line"]),
        function=str(d["function"]),
        calls=int(d["calls"]),
        last_compile_call=_opt_int(d.get("last_compile_call")),
        steady_calls=int(d.get("steady_calls") or 0),
        steady_median_s=_opt_float(d.get("steady_median_s")),
    ),
    EventName.GUARD_OVERHEAD: lambda d: GuardOverhead(
        function_file=str(d["function_file"]),
        function_line=int(d["function_line"]),
        function=str(d["function"]),
        calls=int(d["calls"]),
        compiled_us=float(d["compiled_us"]),
        skip_guards_us=None if d.get("skip_guards_us") is None else float(d["skip_guards_us"]),
        eager_us=None if d.get("eager_us") is None else float(d["eager_us"]),
        error=_opt_str(d.get("error")),
        compiled_spread_us=_opt_float(d.get("compiled_spread_us")),
        skip_guards_spread_us=_opt_float(d.get("skip_guards_spread_us")),
        rounds=_opt_int(d.get("rounds")),
    ),
    EventName.WARNING: lambda d: Warning_(str(d["message"])),
    EventName.PERF_HINT: lambda d: perf_hint(
        str(d["message"]),
        str(d.get("logger", "")),
        CompileId.parse(d["compile_id"]) if isinstance(d.get("compile_id"), str) else None,
    ),
    EventName.EXPLAIN: lambda d: ExplainResult(
        graph_count=int(d["graph_count"]),
        graph_break_count=int(d["graph_break_count"]),
        break_reasons=tuple(str(r) for r in d.get("break_reasons") or []),
        ops_per_graph=tuple(int(n) for n in d.get("ops_per_graph") or []),
        error=_opt_str(d.get("error")),
    ),
    EventName.TARGET_EXIT: lambda d: TargetExit(
        status=str(d["status"]),
        exit_code=int(d["exit_code"]),
        exception_type=_opt_str(d.get("exception_type")),
        message=_opt_str(d.get("message")),
        stack=_frames(d.get("stack")),
        wall_time=_opt_float(d.get("t")),
        traced_stack=traced_frames(_opt_str(d.get("message")) or ""),
    ),
    EventName.TORCH_LOG: lambda d: LogMessage(
        module=str(d["module"]),
        artifact=_opt_str(d.get("artifact")),
        level=str(d.get("level", "")),
        compile_id=CompileId.parse(d["compile_id"]) if isinstance(d.get("compile_id"), str) else None,
        text=str(d["message"]),
    ),
    EventName.TORCH_WARNING: lambda d: ShownWarning(
        category=str(d["category"]), message=str(d["message"]), file=str(d["file"]), line=int(d["line"])
    ),
}


def _events_of(read: object, messages: MessageReader) -> list[object]:
    """What one line read back gives: its event, or for torch's own messages what their parsers make of them
    (a record whose stack comes as records of its own, and repeated calls, are given at the end)."""
    if isinstance(read, LogMessage):
        return messages.log(read)
    if isinstance(read, ShownWarning):
        return messages.warning(read)
    if isinstance(read, TargetExit) and read.message:  # the target died of a CUDA-graph error: say which
        overwritten = overwritten_output(read.message, read.stack)
        return [read, overwritten] if overwritten is not None else [read]
    return [read]


def read_side_channel(stream: BinaryIO, health: LogHealth) -> Iterator[object]:
    messages = MessageReader(health)
    for raw in stream:
        health.lines += 1
        try:
            data = json.loads(raw.decode("utf-8", errors="replace"))
            name = data.get("event") if isinstance(data, dict) else None
            parser = _PARSERS.get(name) if isinstance(name, str) else None  # a list as name: not hashable
        except ValueError:
            health.bad_json += 1
            health.truncated = health.truncated or not raw.endswith(b"\n")  # the writer died mid-line
            continue
        if parser is None:
            health.unknown_kinds += 1
            continue
        try:
            read = parser(data)
        except (KeyError, TypeError, ValueError):
            health.parse_errors += 1
            continue
        if not isinstance(read, (LogMessage, ShownWarning)):  # torch's messages are counted by their parsers
            health.records += 1
        yield from _events_of(read, messages)
    yield from messages.close()
