"""The doctor's side channel: JSON lines the bootstrap writes next to the TORCH_TRACE files.

It carries what TORCH_TRACE does not: how the target ended, perf hints, the backends used,
`torch._dynamo.explain` results. One parser per event name, tolerant like the trace reader.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import BinaryIO

from torchcompile_doctor.events.model import (
    BackendUse,
    BootstrapInfo,
    CallSite,
    CompileId,
    ExplainResult,
    GuardOverhead,
    LogHealth,
    PerfHint,
    StackFrame,
    TargetExit,
    Warning_,
)

FILE_NAME = "doctor_events.jsonl"
# Under torchrun every rank is a capture child: each writes its own file.
RANK_FILE = re.compile(r"^doctor_events_rank_(\d+)\.jsonl$")


def rank_file_name(rank: int) -> str:
    return f"doctor_events_rank_{rank}.jsonl"


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


_PARSERS: dict[str, Callable[[dict], object]] = {
    "bootstrap": lambda d: BootstrapInfo(
        torch_version=str(d.get("torch_version", "")),
        python_version=str(d.get("python_version", "")),
        target=str(d.get("target", "")),
        library_roots=tuple(str(p) for p in d.get("library_roots") or [] if isinstance(p, str)),
        backend_override=_opt_str(d.get("backend_override")),
        pid=d["pid"] if isinstance(d.get("pid"), int) else None,
    ),
    "backend": lambda d: BackendUse(requested=str(d["requested"]), used=str(d["used"])),
    "call_site": lambda d: CallSite(
        function_file=str(d["function_file"]),
        function_line=int(d["function_line"]),
        function=str(d["function"]),
        file=str(d["file"]),
        line=int(d["line"]),
        caller=str(d.get("caller", "?")),
    ),
    "guard_overhead": lambda d: GuardOverhead(
        function_file=str(d["function_file"]),
        function_line=int(d["function_line"]),
        function=str(d["function"]),
        calls=int(d["calls"]),
        compiled_us=float(d["compiled_us"]),
        skip_guards_us=None if d.get("skip_guards_us") is None else float(d["skip_guards_us"]),
        eager_us=None if d.get("eager_us") is None else float(d["eager_us"]),
        error=_opt_str(d.get("error")),
    ),
    "warning": lambda d: Warning_(str(d["message"])),
    "perf_hint": lambda d: PerfHint(
        message=str(d["message"]),
        logger=str(d.get("logger", "")),
        compile_id=CompileId.parse(d["compile_id"]) if isinstance(d.get("compile_id"), str) else None,
    ),
    "explain": lambda d: ExplainResult(
        graph_count=int(d["graph_count"]),
        graph_break_count=int(d["graph_break_count"]),
        break_reasons=tuple(str(r) for r in d.get("break_reasons") or []),
        ops_per_graph=tuple(int(n) for n in d.get("ops_per_graph") or []),
        error=_opt_str(d.get("error")),
    ),
    "target_exit": lambda d: TargetExit(
        status=str(d["status"]),
        exit_code=int(d["exit_code"]),
        exception_type=_opt_str(d.get("exception_type")),
        message=_opt_str(d.get("message")),
        stack=_frames(d.get("stack")),
    ),
}


def read_side_channel(stream: BinaryIO, health: LogHealth) -> Iterator[object]:
    for raw in stream:
        health.lines += 1
        if not raw.endswith(b"\n"):
            health.truncated = True
        try:
            data = json.loads(raw.decode("utf-8", errors="replace"))
            parser = _PARSERS.get(data.get("event")) if isinstance(data, dict) else None
        except ValueError:
            health.bad_json += 1
            continue
        if parser is None:
            health.unknown_kinds += 1
            continue
        try:
            event = parser(data)
        except (KeyError, TypeError, ValueError):
            health.parse_errors += 1
            continue
        health.records += 1
        yield event
