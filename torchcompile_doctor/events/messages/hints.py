"""The `perf_hints` artifact: inductor's notes on code it could not make fast (a fallback kernel, bad tiling, a
cudagraph skip from the `cudagraphs` backend), kept as torch wrote them (analysis picks a rule by their text)."""

from __future__ import annotations

import re

from torchcompile_doctor.events.messages.base import LogMessage, MessageParser
from torchcompile_doctor.events.model import CompileId, PerfHint

_FALLBACK = re.compile(r"^Using FallbackKernel: (?P<op>\S+)")
# torch logs some hints with a tuple for a format string (a stray comma): `('text %s ...',)` once rendered
_TUPLE_MESSAGE = re.compile(r"^\((?P<quote>['\"])(?P<text>.*)(?P=quote),\)$", re.S)
# _dynamo/variables/optimizer.py (2.11-2.15): the optimizer's gradients, by their guard sources, are not static
_GRAD_COPY = re.compile(r"^Grad tensors (?P<sources>\[.*\]) will be copied during cudagraphs execution")
_QUOTED = re.compile(r"\"[^\"]*\"|'[^']*'")


def perf_hint(text: str, logger: str, compile_id: CompileId | None) -> PerfHint:
    """A hint as torch wrote it, the op of a fallback kernel (graph.py: `Using FallbackKernel: %s`), and the hint
    in words where torch's text is made of its internals (the optimizer's gradients as guard sources)."""
    wrapped = _TUPLE_MESSAGE.match(text)
    if wrapped is not None:
        text = wrapped["text"]
    fallback = _FALLBACK.match(text)
    return PerfHint(text, logger, compile_id, fallback["op"] if fallback else None, _worded(text))


def _worded(text: str) -> str | None:
    grads = _GRAD_COPY.match(text)
    if grads is None:
        return None
    count = len(_QUOTED.findall(grads["sources"]))
    return f"gradient tensors of the optimizer's parameters ({count}) are copied at every CUDA-graph run"


def _hint(message: LogMessage, match: re.Match[str]) -> PerfHint:
    return perf_hint(message.text, f"{message.module}.__perf_hints", message.compile_id)


PARSERS = [MessageParser("perf_hint", frozenset({"perf_hints"}), re.compile(r"^(?=\S)"), _hint)]
