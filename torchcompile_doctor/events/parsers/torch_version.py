"""`artifact:torch_version`: the torch that wrote the log."""

from __future__ import annotations

from torchcompile_doctor.events.model import TorchVersion
from torchcompile_doctor.events.parsers.base import Parser
from torchcompile_doctor.events.parsers.common import json_or_none
from torchcompile_doctor.events.reader import Record


def parse(record: Record, strings: dict[int, str]) -> TorchVersion | None:
    body = json_or_none(record.payload or "null")
    version = body.get("pytorch_version") if isinstance(body, dict) else None
    return TorchVersion(version) if isinstance(version, str) else None


PARSER = Parser(frozenset({"artifact:torch_version"}), needs_payload=True, parse=parse)
