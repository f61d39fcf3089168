"""`dynamo_start`: the user stack that reached a compiled frame (file names are interned ids)."""

from __future__ import annotations

from torchcompile_doctor.events.model import DynamoStart
from torchcompile_doctor.events.parsers.base import Parser
from torchcompile_doctor.events.parsers.common import as_int, as_str, compile_id_of, stack_frame
from torchcompile_doctor.events.reader import Record


def parse(record: Record, strings: dict[int, str]) -> DynamoStart | None:
    body = record.meta.get("dynamo_start")
    compile_id = compile_id_of(record.meta)
    if not isinstance(body, dict) or compile_id is None:
        return None
    frames = []
    stack = body.get("stack")
    for frame in stack if isinstance(stack, list) else ():
        if not isinstance(frame, dict):
            continue
        filename = frame.get("filename")
        file = strings.get(filename, f"<interned {filename}>") if isinstance(filename, int) else as_str(filename)
        line = as_int(frame.get("line"))
        if file is None or line is None:
            continue
        frames.append(stack_frame(file, line, as_str(frame.get("name")) or "?", as_str(frame.get("loc")) or ""))
    return DynamoStart(compile_id, tuple(frames))


PARSER = Parser(frozenset({"dynamo_start"}), needs_payload=False, parse=parse)
