"""`chromium_event`: torch's compile spans (the tlparse/Perfetto timeline), each begin and end of a named span
with the compile it belongs to. The report splits the C++ compile out of inductor's time with them
(`compile_file`, `async_compile.wait`) and draws each compile's nested phases from all of them."""

from __future__ import annotations

import re
import sys

from torchcompile_doctor.events.model import CompileId, CompileSpan
from torchcompile_doctor.events.parsers.base import NOT_AN_EVENT, Parser
from torchcompile_doctor.events.parsers.common import as_float, as_str, json_or_none
from torchcompile_doctor.events.reader import Record

# The end of a span torch wrote (json.dumps with indent=0, tab-indented in the log) whose phase is neither begin nor
# end: an instant event ("i"), whose args carry a whole FX graph's cache key inputs (half a big log's span bytes).
# Its top-level "ph" is the last one, so this is what parse() would read from it; nothing of it is kept.
_INSTANT_END = re.compile(
    rb'\n\t"ph": "(?!B"|E")[^"\\\x00-\x1f]*",\n\t"cat": "[^"\\\x00-\x1f]*",\n\t"tid": -?[0-9]+,\n\t"pid": -?[0-9]+'
    rb'(?:,\n\t"s": "[^"\\\x00-\x1f]*")?\n\t\}\n?\Z'
)


def passes_over(end: bytes) -> bool:
    """Whether a span's payload, by its last lines as written, is an instant (what parse() returns NOT_AN_EVENT for)."""
    return _INSTANT_END.search(end) is not None


def parse(record: Record, strings: dict[int, str]) -> object | None:
    body = json_or_none(record.payload or "")
    if not isinstance(body, dict):
        return None
    name, phase, ts = as_str(body.get("name")), as_str(body.get("ph")), as_float(body.get("ts"))
    if phase not in ("B", "E"):  # instant events ("i") mark a moment, not a span
        return NOT_AN_EVENT
    if ts is None or not name:
        return None
    args = body.get("args")
    compile_id = CompileId.parse(as_str(args.get("compile_id")) or "") if isinstance(args, dict) else None
    return CompileSpan(compile_id, sys.intern(name), phase, ts)  # a few span names, each repeated thousands of times


PARSER = Parser(frozenset({"chromium_event"}), needs_payload=True, parse=parse, passes_over=passes_over)
