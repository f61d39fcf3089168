"""Load an artifacts dir (or one trace file) into an EventLog: TORCH_TRACE files + side channel."""

from __future__ import annotations

import json
from pathlib import Path

from torchcompile_doctor.events.model import EventLog
from torchcompile_doctor.events.parsers import IGNORED_KINDS, NOT_AN_EVENT, Parser, default_parsers
from torchcompile_doctor.events.reader import read_records
from torchcompile_doctor.events.sidechannel import FILE_NAME as SIDE_CHANNEL
from torchcompile_doctor.events.sidechannel import read_side_channel


def trace_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    return sorted(p for p in path.rglob("*.log") if p.is_file())


def load_trace(stream, log: EventLog, parsers: list[Parser] | None = None) -> None:
    """Parse one TORCH_TRACE stream into `log` (appending)."""
    by_kind = {kind: parser for parser in parsers or default_parsers() for kind in parser.kinds}
    strings: dict[int, str] = {}
    wants = lambda kind: kind in by_kind and by_kind[kind].needs_payload  # noqa: E731
    for record in read_records(stream, log.health, wants):
        if record.kind == "str":
            interned = record.meta.get("str")
            if isinstance(interned, list) and len(interned) == 2 and isinstance(interned[1], int):
                strings[interned[1]] = str(interned[0])
            continue
        parser = by_kind.get(record.kind)
        if parser is None:
            if record.kind not in IGNORED_KINDS and not record.kind.startswith("artifact"):
                log.health.unknown_kinds += 1
            continue
        try:
            event = parser.parse(record, strings)
        except (ValueError, TypeError, KeyError, AttributeError, json.JSONDecodeError):
            event = None
        if event is None:
            log.health.parse_errors += 1
        elif event is not NOT_AN_EVENT:
            log.add(event)


def load_artifacts(path: Path) -> EventLog:
    """Every trace file under `path` (or `path` itself) and the side channel beside them."""
    log = EventLog()
    for file in trace_files(path):
        with file.open("rb") as stream:
            load_trace(stream, log)
    side = path / SIDE_CHANNEL if path.is_dir() else None
    if side is not None and side.is_file():
        with side.open("rb") as stream:
            for event in read_side_channel(stream, log.health):
                log.add(event)
    return log
