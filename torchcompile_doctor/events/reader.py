"""Streaming, tolerant reader of TORCH_TRACE logs (glog envelope + JSON metadata + tab-indented payload).

A record looks like::

    V1121 05:24:38.986000 2207 torch/_dynamo/convert_frame.py:303] {"dynamo_start": {...}, "frame_id": 0, ...}
    \t<payload line 1>
    \t<payload line 2>

Bad lines, bad JSON and payloads whose md5 does not match `has_payload` are counted in `LogHealth`
and skipped; nothing here raises on content. Payloads are only kept for the kinds a caller asks for,
so memory stays flat however large the log is.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import BinaryIO

from torchcompile_doctor.events.model import LogHealth

# The keys every record may carry besides its kind.
META_KEYS = frozenset(
    {"rank", "frame_id", "frame_compile_id", "attempt", "has_payload", "stack", "compiled_autograd_id"}
)
_ENVELOPE = re.compile(rb"^[VIWEC]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ [^\]]*\] ")
MAX_LINE_BYTES = 64 * 1024 * 1024  # one line longer than this is skipped, not loaded


@dataclass(frozen=True)
class Record:
    kind: str  # e.g. "dynamo_start", or "artifact:recompile_reasons" for artifacts
    meta: dict
    payload: str | None
    line_no: int


def record_kind(meta: dict) -> str | None:
    for key in meta:
        if key not in META_KEYS:
            if key == "artifact":
                artifact = meta.get("artifact")
                name = artifact.get("name") if isinstance(artifact, dict) else None
                return f"artifact:{name}" if isinstance(name, str) else "artifact"
            return key
    return None


def _lines(stream: BinaryIO, health: LogHealth) -> Iterator[bytes]:
    while True:
        raw = stream.readline(MAX_LINE_BYTES)
        if not raw:
            return
        if not raw.endswith(b"\n"):
            if len(raw) >= MAX_LINE_BYTES:
                health.bad_lines += 1
                while raw and not raw.endswith(b"\n"):  # drain the rest of the giant line
                    raw = stream.readline(MAX_LINE_BYTES)
                continue
            health.truncated = True  # the writer died mid-line
        health.lines += 1
        yield raw.rstrip(b"\r\n")


def read_records(
    stream: BinaryIO,
    health: LogHealth,
    wants_payload: Callable[[str], bool] = lambda kind: True,
) -> Iterator[Record]:
    """Yield the records of one trace file; interned strings (`{"str": [...]}`) are yielded too."""
    pending: tuple[str, dict, int] | None = None
    payload_lines: list[bytes] = []
    keep_payload = False

    def finish() -> Record | None:
        kind, meta, line_no = pending
        payload = None
        expected = meta.get("has_payload")
        if keep_payload and isinstance(expected, str):
            text = b"\n".join(payload_lines).decode("utf-8", errors="replace")
            if hashlib.md5(text.encode("utf-8"), usedforsecurity=False).hexdigest() != expected:
                health.md5_mismatches += 1
                return None
            payload = text
        health.records += 1
        return Record(kind, meta, payload, line_no)

    for line_no, raw in enumerate(_lines(stream, health), start=1):
        if raw.startswith(b"\t"):
            if pending is None:
                health.bad_lines += 1
            elif keep_payload:
                payload_lines.append(raw[1:])
            continue
        if pending is not None:
            record = finish()
            if record is not None:
                yield record
            pending = None
        if not raw.strip():
            continue
        match = _ENVELOPE.match(raw)
        if match is None:
            health.bad_lines += 1
            continue
        try:
            meta = json.loads(raw[match.end() :])
        except ValueError:
            health.bad_json += 1
            continue
        kind = record_kind(meta) if isinstance(meta, dict) else None
        if kind is None:
            health.bad_json += 1
            continue
        pending = (kind, meta, line_no)
        payload_lines = []
        keep_payload = "has_payload" in meta and wants_payload(kind)
    if pending is not None:
        record = finish()
        if record is not None:
            yield record
