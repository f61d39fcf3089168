"""Streaming, tolerant reader of TORCH_TRACE logs (glog envelope + JSON metadata + tab-indented payload).

A record looks like::

    V1121 05:24:38.986000 2207 torch/_dynamo/convert_frame.py:303] {"dynamo_start": {...}, "frame_id": 0, ...}
    \t<payload line 1>
    \t<payload line 2>

Bad lines, bad JSON and payloads whose md5 does not match `has_payload` are counted in `LogHealth`
and skipped; nothing here raises on content. The file is read in blocks and the payload lines of a
record are handled as one run found by a C-level search, so Python does work per record, not per line;
payloads are only decoded, md5-checked and kept for the kinds a caller asks for (less those whose last
lines say they hold nothing to read: `passes_over`, an instant span), so memory stays flat however large
the log is (one block, one wanted payload, and at most one line of MAX_LINE_BYTES).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

from torchcompile_doctor.events.model import LogHealth

# The keys every record may carry besides its kind.
META_KEYS = frozenset(
    {"rank", "frame_id", "frame_compile_id", "attempt", "has_payload", "stack", "compiled_autograd_id"}
)
_ENVELOPE = re.compile(rb"^[VIWEC]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ [^\]]*\] ")
# Where a run of payload lines ends: a newline followed by anything but a tab (or the end of the block).
_NOT_PAYLOAD = re.compile(rb"\n[^\t]")
# A record's envelope behind a payload line's tab: a damaged line that joined the record before it, whose md5
# check then tells that record's own lines from it (a payload passed over unread must not hide one).
_ENVELOPE_IN_PAYLOAD = re.compile(rb"\t[VIWEC]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ [^\]\n]*\] ")
MAX_LINE_BYTES = 64 * 1024 * 1024  # one line longer than this is skipped, not loaded
BLOCK_BYTES = 1024 * 1024
_JSON = json.JSONDecoder()
_scan_json: Callable[[str, int], tuple[Any, int]] = _JSON.scan_once  # type: ignore[attr-defined]  # (set in __init__)
_JSON_BLANKS = " \t\n\r"  # the whitespace JSON allows around a value
_TAB = 9

# What the scanner yields.
_LINE, _PAYLOAD, _LONG = 0, 1, 2


@dataclass(frozen=True, slots=True)  # made per record (a big log's tens of thousands): slots make it quicker
class Record:
    kind: str  # e.g. "dynamo_start", or "artifact:recompile_reasons" for artifacts
    meta: dict[str, Any]
    payload: str | None
    line_no: int
    envelope: bytes = b""  # the glog prefix as written: level, date, time, process id, torch's file:line
    passed_over: bool = False  # its payload was wanted but its last lines say it holds nothing to read: not read


def record_kind(meta: dict[str, Any]) -> str | None:
    for key in meta:
        if key not in META_KEYS:
            if key == "artifact":
                artifact = meta.get("artifact")
                name = artifact.get("name") if isinstance(artifact, dict) else None
                return f"artifact:{name}" if isinstance(name, str) else "artifact"
            return key
    return None


def decode_json(text: str) -> Any:
    """`json.loads(text)`: the same value, or the same ValueError or RecursionError; the C scanner is called
    directly for a text that starts with its value (every envelope, every payload torch writes), which spares
    the decoder's two whitespace matches per call, a tenth of a big log's reading."""
    try:
        value, end = _scan_json(text, 0)
    except StopIteration:  # no value at the start: leading whitespace, or not JSON; the whole decoder says which
        return _JSON.decode(text)
    if end != len(text) and text[end:].strip(_JSON_BLANKS):
        raise json.JSONDecodeError("Extra data", text, end)
    return value


def _blocks(stream: BinaryIO, health: LogHealth, limit: int) -> Iterator[tuple[bytes, int | None]]:
    """Blocks of whole lines, each ending with a newline except a last line the writer did not finish
    (`health.truncated`). A line longer than `limit` is not loaded: it is yielded as (b"", first byte)."""
    block_size = max(1, min(BLOCK_BYTES, limit))
    head: list[bytes] = []  # the start of a line that continues in the next read
    head_size = 0
    data = b""  # read but not yet handled
    while True:
        if not data:
            data = stream.read(block_size)
            if not data:
                break
        cut = data.rfind(b"\n")
        if cut == -1:
            head.append(data)
            head_size += len(data)
            data = b""
            if head_size > limit:
                first = head[0][0]
                head, head_size = [], 0
                data = _after_line(stream, block_size)
                yield b"", first
            continue
        if head:
            head.append(data[: cut + 1])
            block = b"".join(head)
            head, head_size = [], 0
        else:
            block = data[: cut + 1] if cut + 1 < len(data) else data
        yield block, None
        if cut + 1 < len(data):
            head, head_size = [data[cut + 1 :]], len(data) - cut - 1
        data = b""
    if head:
        health.truncated = True  # the writer died mid-line
        yield b"".join(head), None


def _after_line(stream: BinaryIO, block_size: int) -> bytes:
    """Read past the rest of a line too long to load; what follows its newline in the last read. One
    reused buffer: a fresh bytes object per read would page-fault its way through a multi-GB line."""
    readinto = getattr(stream, "readinto", None)
    scratch = bytearray(block_size)
    while True:
        if readinto is not None:
            count = readinto(scratch) or 0
        else:
            data = stream.read(block_size)
            count = len(data)
            scratch[:count] = data
        if not count:
            return b""
        cut = scratch.find(b"\n", 0, count)
        if cut != -1:
            return bytes(scratch[cut + 1 : count])


def _scan(stream: BinaryIO, health: LogHealth) -> Iterator[tuple[int, int, bytes, int, int, int]]:
    """(what, line number, block, start, end, lines) per non-payload line (`_LINE`, end excludes the newline),
    per run of consecutive payload lines (`_PAYLOAD`, the run as written, tabs and newlines included; `lines`:
    how many), and per line too long to load (`_LONG`, `start` is its first byte). Counts every line."""
    limit = MAX_LINE_BYTES
    line_no = 0
    for block, long_first in _blocks(stream, health, limit):
        if long_first is not None:
            line_no += 1
            health.lines += 1
            yield _LONG, line_no, b"", long_first, 0, 1
            continue
        end = len(block)
        pos = 0
        while pos < end:
            if block[pos] == _TAB:
                found = _NOT_PAYLOAD.search(block, pos)
                stop = found.start() + 1 if found else end
                if stop - pos > limit:  # a payload line may be too long: look at them one by one
                    yield from _payload_lines(block, pos, stop, line_no, health, limit)
                    line_no += block.count(b"\n", pos, stop) + (block[stop - 1] != 10)
                    pos = stop
                    continue
                count = block.count(b"\n", pos, stop) + (block[stop - 1] != 10)
                health.lines += count
                yield _PAYLOAD, line_no + 1, block, pos, stop, count
                line_no += count
                pos = stop
            else:
                newline = block.find(b"\n", pos)
                stop = end if newline == -1 else newline
                line_no += 1
                health.lines += 1
                if stop + 1 - pos > limit:
                    yield _LONG, line_no, b"", block[pos], 0, 1
                else:
                    yield _LINE, line_no, block, pos, stop, 1
                pos = stop + 1


def _payload_lines(
    block: bytes, pos: int, stop: int, line_no: int, health: LogHealth, limit: int
) -> Iterator[tuple[int, int, bytes, int, int, int]]:
    while pos < stop:
        newline = block.find(b"\n", pos, stop)
        end = stop if newline == -1 else newline + 1
        line_no += 1
        health.lines += 1
        if end - pos > limit:
            yield _LONG, line_no, b"", _TAB, 0, 1
        else:
            yield _PAYLOAD, line_no, block, pos, end, 1
        pos = end


def _payload_bytes(run: bytes, lines: int) -> bytes:
    """The payload as torch hashed it: the `lines` lines of the run without their tab, joined by newlines."""
    if b"\r" in run:
        return b"\n".join(line.rstrip(b"\r")[1:] for line in run.rstrip(b"\n").split(b"\n"))
    if run.count(b"\t") == lines:  # each line's leading tab is the only one: all go, twice as fast as replace()
        return run.translate(None, b"\t")[: -1 if run.endswith(b"\n") else None]
    return run[1 : -1 if run.endswith(b"\n") else None].replace(b"\n\t", b"\n")


def _verified_prefix(payload: bytes, expected: str) -> int | None:
    """How many payload lines the md5 vouches for, when only a prefix of them matches: lines after the
    record's own that look like payload (a damaged line that now starts with a tab) are not its own."""
    hasher = hashlib.md5(usedforsecurity=False)
    lines = payload.split(b"\n")
    for count, line in enumerate(lines[:-1], start=1):
        hasher.update(line)
        if hasher.copy().hexdigest() == expected:
            return count
        hasher.update(b"\n")
    return None


def _finish(
    pending: tuple[str, dict[str, Any], int, bytes],
    runs: list[bytes] | None,
    lines: int,
    complete: bool,
    health: LogHealth,
) -> Record | None:
    """The pending record, its payload (`lines` lines) md5-checked when it was kept (`runs`); None (counted) on a
    mismatch."""
    kind, meta, line_no, envelope = pending
    payload = None
    expected = meta.get("has_payload")
    if runs is not None and isinstance(expected, str):
        data = _payload_bytes(runs[0] if len(runs) == 1 else b"".join(runs), lines) if runs else b""
        if not complete or hashlib.md5(data, usedforsecurity=False).hexdigest() != expected:
            kept = _verified_prefix(data, expected) if complete else None
            if kept is None:
                health.md5_mismatches += 1
                return None
            split = data.split(b"\n")
            health.bad_lines += len(split) - kept  # counted as lines already, now as bad ones
            data = b"\n".join(split[:kept])
        payload = data.decode("utf-8", errors="replace")
    health.records += 1
    return Record(kind, meta, payload, line_no, envelope)


def _envelope(line: bytes, health: LogHealth) -> tuple[str, dict[str, Any], bytes] | None:
    """(kind, metadata, glog prefix) of a record's first line; None for a blank line, and (counted) for a bad one."""
    if line.endswith(b"\r"):
        line = line.rstrip(b"\r\n")
    match = _ENVELOPE.match(line)
    if match is None:
        if line.strip():  # (a blank line never matches; it is no bad line)
            health.bad_lines += 1
        return None
    try:
        meta = decode_json(line[match.end() :].decode("utf-8"))
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError; RecursionError: deep nesting
        health.bad_json += 1
        return None
    kind = record_kind(meta) if isinstance(meta, dict) else None
    if kind is None:
        health.bad_json += 1
        return None
    return kind, meta, line[: match.end()]


# How much of a kept payload's end (as written) a `passes_over` test sees.
TAIL_BYTES = 512
_UNKEPT_RUNS = 16  # the unwanted payload of the pending record kept by reference (its blocks), for the end check


class _Pending:
    """The record being read: its envelope, its payload as written when it is wanted (else a view of it while it
    is short: the file's last record is checked whole), and whether every payload line could be loaded."""

    __slots__ = ("envelope", "keep_payload", "runs", "unkept", "lines", "complete")

    def __init__(self, kind: str, meta: dict[str, Any], line_no: int, prefix: bytes, keep_payload: bool) -> None:
        self.envelope = (kind, meta, line_no, prefix)
        self.keep_payload = keep_payload
        self.runs: list[bytes] = []
        self.unkept: list[memoryview] | None = []
        self.lines = 0  # in the runs kept, or viewed
        self.complete = True

    def add_run(self, block: bytes, start: int, stop: int, lines: int) -> None:
        if self.keep_payload:
            self.runs.append(block[start:stop])
            self.lines += lines
        elif self.unkept is not None:
            self.unkept = self.unkept + [memoryview(block)[start:stop]] if len(self.unkept) < _UNKEPT_RUNS else None
            self.lines += lines

    def finish(self, health: LogHealth, passes_over: Callable[[str, bytes], bool] | None = None) -> Record | None:
        """The record; a kept payload whose end `passes_over` is left unread (neither md5-checked nor decoded, as
        the payload of a kind nobody reads), the record counted and marked."""
        if passes_over is not None and self.keep_payload and self.runs and self.complete:
            kind, meta, line_no, prefix = self.envelope
            if passes_over(kind, self.runs[-1][-TAIL_BYTES:]) and not any(
                _ENVELOPE_IN_PAYLOAD.search(run) for run in self.runs
            ):
                health.records += 1
                return Record(kind, meta, None, line_no, prefix, passed_over=True)
        return _finish(self.envelope, self.runs if self.keep_payload else None, self.lines, self.complete, health)

    def whole(self) -> bool:
        """The file's last record, which a last line without its newline ends, is whole: it announces no payload,
        or the payload its md5 vouches for is all there (a writer that wrote all but the final newline)."""
        expected = self.envelope[1].get("has_payload")
        if not isinstance(expected, str):
            return True
        runs = self.runs if self.keep_payload else self.unkept
        if runs is None or not self.complete:
            return False
        return hashlib.md5(_payload_bytes(b"".join(runs), self.lines), usedforsecurity=False).hexdigest() == expected


def read_records(
    stream: BinaryIO,
    health: LogHealth,
    wants_payload: Callable[[str], bool] = lambda kind: True,
    passes_over: Callable[[str, bytes], bool] | None = None,
) -> Iterator[Record]:
    """Yield the records of one trace file; interned strings (`{"str": [...]}`) are yielded too. A file whose
    last line lacks its newline is truncated only when that line leaves its record incomplete. `passes_over(kind,
    end)`: whether a wanted payload, by its last TAIL_BYTES as written, holds nothing its reader reads."""
    truncated_before = health.truncated
    pending: _Pending | None = None
    for what, line_no, block, start, stop, lines in _scan(stream, health):
        if what == _PAYLOAD:
            if pending is None:
                health.bad_lines += lines
            else:
                pending.add_run(block, start, stop, lines)
            continue
        if what == _LONG:
            health.bad_lines += 1
            if start == _TAB:  # a payload line of the pending record, if any: it cannot be checked now
                if pending is not None:
                    pending.complete = False
                continue
        if pending is not None:
            record = pending.finish(health, passes_over)
            if record is not None:
                yield record
            pending = None
        started = _envelope(block[start:stop], health) if what != _LONG else None
        if started is not None:
            kind, meta, prefix = started
            pending = _Pending(kind, meta, line_no, prefix, "has_payload" in meta and wants_payload(kind))
    if pending is not None:
        yield from _last(pending, health, truncated_before)


def _last(pending: _Pending, health: LogHealth, truncated_before: bool) -> Iterator[Record]:
    """The file's last record; a file cut just after its last byte but for the newline is not truncated."""
    whole = pending.whole()
    if not whole and not pending.keep_payload and pending.unkept and health.truncated:
        health.md5_mismatches += 1  # the last payload is not what its md5 says (finish() checks a kept one)
    record = pending.finish(health)
    if record is not None:
        yield record
    if whole and not truncated_before:
        health.truncated = False  # only the final newline is missing
