"""`artifact:recompile_reasons`: the guard failures that made Dynamo compile a frame again."""

from __future__ import annotations

from dataclasses import replace

from torchcompile_doctor.events.model import Recompile
from torchcompile_doctor.events.parsers.base import Parser
from torchcompile_doctor.events.parsers.common import PayloadMemo, compile_id_of, json_or_none
from torchcompile_doctor.events.reader import Record


def _of_text(payload: str) -> Recompile | None:
    # torch writes one reason as the bare string and several as a JSON list, both as "encoding: json".
    body = json_or_none(payload) if payload.startswith("[") else [payload]
    if not isinstance(body, list) or not payload or not all(isinstance(item, str) for item in body):
        return None
    return Recompile.of(None, tuple(body))


# the same reasons logged again (a function recompiled for the same cause on every copy or reset) are read once
_REASONS = PayloadMemo(_of_text)


def parse(record: Record, strings: dict[int, str]) -> Recompile | None:
    made = _REASONS(record)
    return replace(made, compile_id=compile_id_of(record.meta)) if made is not None else None


PARSER = Parser(frozenset({"artifact:recompile_reasons"}), needs_payload=True, parse=parse)
