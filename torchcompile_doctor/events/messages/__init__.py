"""torch's human-readable messages, those it sends to Python loggers and to `warnings` rather than to
TORCH_TRACE: CUDA-graph skips and partitions, perf hints, the TF32 warning, and (in a text log) graph breaks
and recompiles. Two sources feed the same parsers: the capture's hooks, through the side channel
(events/sidechannel.py), and a job's text log (events/textlog.py). So a message means one thing whichever way
it arrived, and a new wording of torch's is one change here.

A parser names the artifacts whose records it reads (`cudagraphs`, `perf_hints`, ...; None: a plain logger) and
what its first line looks like (`start`, which also tells a text log where a record begins), and turns one
record into one event. `MessageReader` runs them in registry order over a process's records, in the order
torch logged them, and also joins what torch logs as several records (an op's stack after the op) and counts
repeated events (a call that missed the CUDA-graph fast path, logged per call) so memory stays flat.
"""

from __future__ import annotations

import re
from dataclasses import fields, replace
from typing import Any

from torchcompile_doctor.events.messages import cudagraphs, dynamo, hints, warnings
from torchcompile_doctor.events.messages.base import KNOWN, LogMessage, MessageParser, ShownWarning
from torchcompile_doctor.events.model import (
    CompileId,
    CudagraphRecording,
    CudagraphSkip,
    LogHealth,
    NonCudagraphableOp,
)
from torchcompile_doctor.events.parsers.graph_break_reason import parse_stack

__all__ = ["KNOWN", "LogMessage", "MessageParser", "MessageReader", "ShownWarning", "starts_a_record"]


def default_message_parsers() -> list[MessageParser]:
    """The registry, in the order a record is tried."""
    return [*cudagraphs.PARSERS, *dynamo.PARSERS, *hints.PARSERS]


_PARSERS = default_message_parsers()


def _starts_by_artifact() -> dict[str | None, re.Pattern[str]]:
    artifacts = {artifact for parser in _PARSERS for artifact in parser.artifacts}
    return {
        artifact: re.compile("|".join(f"(?:{p.start.pattern})" for p in _PARSERS if artifact in p.artifacts))
        for artifact in artifacts
    }


_STARTS = _starts_by_artifact()


def starts_a_record(line: str, artifact: str | None) -> bool:
    """A line that begins a message of its own for the artifact's parsers (a text log splits the lines of one
    prefix there: torch may log two records in the same millisecond)."""
    starts = _STARTS.get(artifact)
    return starts is not None and starts.match(line) is not None


def _counted_key(event: object) -> object:
    return replace(event, count=1)  # type: ignore[type-var]


_MEMO_SIZE = 4096  # distinct repeated records remembered (a job logs the same per-call records over and over)


_COUNTED_TYPES: dict[type, bool] = {}


def _counts(kind: type) -> bool:
    """Events of this type carry a `count`: repeats are summed, not kept one by one."""
    counted = _COUNTED_TYPES.get(kind)
    if counted is None:
        counted = _COUNTED_TYPES[kind] = any(f.name == "count" for f in fields(kind))
    return counted


class MessageReader:
    """The events of one process's messages, fed in the order torch logged them; `close()` gives the rest."""

    def __init__(self, health: LogHealth) -> None:
        self.health = health
        self._op: NonCudagraphableOp | None = None  # an op whose stack may still follow, as records of its own
        self._op_stack: list[str] = []
        self._counts: dict[object, int] = {}  # counted events (they have a `count`), first seen first
        # a record seen before whose event counts: its key, so a repeat costs a dict lookup, not a parse
        self._memo: dict[tuple[Any, ...], object] = {}
        self._last_graph: CompileId | None = None  # the compile the last cudagraphs record named

    def log(self, message: LogMessage) -> list[object]:
        memo = (message.artifact, message.compile_id, message.text)
        key = self._memo.get(memo)
        if key is not None and self._op is None:
            self.health.records += 1
            self._counts[key] += 1
            self._with_graph(message, key)  # the repeat still names the graph run last
            return []
        done: list[object] = []
        if self._op is not None:
            if cudagraphs.OP_STACK_LINE.match(message.text) and message.artifact == "cudagraphs":
                self._op_stack.extend(message.text.split("\n"))
                return done
            done.append(self._finish_op())
        parsed = self._parse(message)
        event = self._with_graph(message, parsed)
        if isinstance(event, NonCudagraphableOp):
            self._op, self._op_stack = event, []
        elif event is not None and event is not KNOWN:
            done.extend(self.emit(event))
            # a record whose compile was inferred is the same text for another graph: parsed each time
            if _counts(type(event)) and len(self._memo) < _MEMO_SIZE and event is parsed:
                self._memo[memo] = _counted_key(event)
        return done

    def _with_graph(self, message: LogMessage, event: object | None) -> object | None:
        """A CUDA-graph skip or recording torch logged without its compile (at the graph's first call, 2.11-2.15)
        belongs to the compile whose cudagraphs records came last: torch runs a graph right after compiling it."""
        if message.artifact != "cudagraphs":
            return event
        if isinstance(event, (CudagraphSkip, CudagraphRecording)) and event.compile_id is None:
            return replace(event, compile_id=self._last_graph) if self._last_graph is not None else event
        compile_id = message.compile_id or getattr(event, "compile_id", None)
        if isinstance(compile_id, CompileId):
            self._last_graph = compile_id
        return event

    def _parse(self, message: LogMessage) -> object | None:
        for parser in _PARSERS:
            if message.artifact not in parser.artifacts:
                continue
            match = parser.start.match(message.text)
            if match is None:
                continue
            self.health.records += 1
            try:
                event = parser.parse(message, match)
            except (ValueError, IndexError, KeyError):
                event = None
            if event is None:
                self.health.parse_errors += 1
            return event
        self.health.unknown_kinds += 1
        return None

    def warning(self, shown: ShownWarning) -> list[object]:
        """A warning Python showed: an event when it came from torch's compile stack, else nothing."""
        event = warnings.torch_warning(shown)
        if event is None:
            return []
        self.health.records += 1
        return self.emit(event)

    def emit(self, event: object) -> list[object]:
        """The event now, or, for an event that counts (`count`), later: summed with its repeats at close()."""
        if not _counts(type(event)):
            return [event]
        key = _counted_key(event)
        self._counts[key] = self._counts.get(key, 0) + event.count  # type: ignore[attr-defined]
        return []

    def _finish_op(self) -> object:
        op, self._op = self._op, None
        assert op is not None
        if self._op_stack:
            op = replace(op, user_stack=op.user_stack + parse_stack(self._op_stack))
        return op

    def close(self) -> list[object]:
        done = [self._finish_op()] if self._op is not None else []
        done += [replace(event, count=count) for event, count in self._counts.items()]  # type: ignore[type-var]
        self._counts, self._memo = {}, {}
        return done
