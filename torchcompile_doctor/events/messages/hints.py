"""The `perf_hints` artifact: inductor's notes on code it could not make fast (a fallback kernel, bad tiling, a
cudagraph skip from the `cudagraphs` backend), kept as torch wrote them (analysis picks a rule by their text)."""

from __future__ import annotations

import re

from torchcompile_doctor.events.messages.base import LogMessage, MessageParser
from torchcompile_doctor.events.model import CompileId, PerfHint

_FALLBACK = re.compile(r"^Using FallbackKernel: (?P<op>\S+)")


def perf_hint(text: str, logger: str, compile_id: CompileId | None) -> PerfHint:
    """A hint as torch wrote it, and the op of a fallback kernel (graph.py: `Using FallbackKernel: %s`)."""
    fallback = _FALLBACK.match(text)
    return PerfHint(text, logger, compile_id, fallback["op"] if fallback else None)


def _hint(message: LogMessage, match: re.Match[str]) -> PerfHint:
    return perf_hint(message.text, f"{message.module}.__perf_hints", message.compile_id)


PARSERS = [MessageParser("perf_hint", frozenset({"perf_hints"}), re.compile(r"^(?=\S)"), _hint)]
