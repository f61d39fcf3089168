"""`chromium_event`: torch's compile spans (the tlparse/Perfetto timeline). Only the spans the report splits
out of inductor's time are kept: each C++ kernel compiled in this process (`compile_file`) and the wait for
kernels compiled in worker processes (`async_compile.wait`)."""

from __future__ import annotations

from torchcompile_doctor.events.model import CompileId, CompileSpan
from torchcompile_doctor.events.parsers import NOT_AN_EVENT, Parser
from torchcompile_doctor.events.parsers.common import as_float, as_str, json_or_none
from torchcompile_doctor.events.reader import Record

KEPT_SPANS = frozenset({"compile_file", "async_compile.wait"})


def parse(record: Record, strings: dict[int, str]) -> object | None:
    payload = record.payload or ""
    if not any(name in payload for name in KEPT_SPANS):  # most spans: not decoded at all
        return NOT_AN_EVENT
    body = json_or_none(payload)
    if not isinstance(body, dict):
        return None
    name, phase, ts = as_str(body.get("name")), as_str(body.get("ph")), as_float(body.get("ts"))
    if name not in KEPT_SPANS or phase not in ("B", "E"):
        return NOT_AN_EVENT
    if ts is None:
        return None
    args = body.get("args")
    compile_id = CompileId.parse(args.get("compile_id") or "") if isinstance(args, dict) else None
    return CompileSpan(compile_id, name or "", phase or "", ts)


PARSER = Parser(frozenset({"chromium_event"}), needs_payload=True, parse=parse)
