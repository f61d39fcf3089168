"""Payloads the reader leaves unread: a parser's `passes_over` judges a wanted payload by its end as written, and
what it passes over must be exactly what the parser would have found nothing in (the instant spans of
`chromium_event`), on every real log checked in and on the seeds the bench builds its big trace from."""

from __future__ import annotations

import dataclasses
import io
import re
from pathlib import Path

import pytest
from support.paths import DATA

from torchcompile_doctor.events.load import load_trace
from torchcompile_doctor.events.model import EventLog, LogHealth
from torchcompile_doctor.events.parsers import NOT_AN_EVENT, chromium_event, parser_table
from torchcompile_doctor.events.reader import TAIL_BYTES, read_records

# Real trace files: the checked-in logs and captures, and the bench's seeds where this checkout has them.
LOGS = sorted(DATA.rglob("*.log")) + sorted((Path(__file__).parents[2] / "bench" / ".data" / "seeds").rglob("*.log"))
_ENVELOPE = re.compile(rb"^[VIWEC]\d{4} [^\]]*\] ", re.MULTILINE)


def _chromium_payloads(data: bytes) -> list[bytes]:
    """Each chromium_event record's payload lines as written (tabs and newlines), split at the envelopes."""
    starts = [m.start() for m in _ENVELOPE.finditer(data)] + [len(data)]
    payloads = []
    for start, end in zip(starts, starts[1:], strict=False):
        head, _, rest = data[start:end].partition(b"\n")
        if b'] {"chromium_event"' in head and rest.startswith(b"\t"):
            payloads.append(rest)
    return payloads


def _clean_chromium_logs() -> list[Path]:
    return [path for path in LOGS if b'{"chromium_event"' in path.read_bytes() and "corrupted" not in path.parts]


def test_the_real_logs_hold_instant_spans_to_pass_over():
    ends = [p[-TAIL_BYTES:] for path in _clean_chromium_logs() for p in _chromium_payloads(path.read_bytes())]
    assert sum(map(chromium_event.passes_over, ends)) >= 2  # item_recompile.log, recompile_limit.log
    assert sum(not chromium_event.passes_over(end) for end in ends) > 100


@pytest.mark.parametrize("path", _clean_chromium_logs(), ids=lambda p: str(p.relative_to(p.parents[1])))
def test_a_payload_is_passed_over_exactly_when_its_parser_finds_nothing_in_it(path: Path):
    records = [r for r in read_records(io.BytesIO(path.read_bytes()), LogHealth()) if r.kind == "chromium_event"]
    payloads = _chromium_payloads(path.read_bytes())
    assert len(records) == len(payloads)
    for record, written in zip(records, payloads, strict=True):
        nothing = chromium_event.parse(record, {}) is NOT_AN_EVENT
        assert chromium_event.passes_over(written[-TAIL_BYTES:]) == nothing, record.line_no


@pytest.mark.parametrize("path", _clean_chromium_logs(), ids=lambda p: str(p.relative_to(p.parents[1])))
def test_passing_over_changes_no_event_and_no_count(path: Path):
    """load_trace with the parsers' tests, and with none (every wanted payload read): the same log."""
    data = path.read_bytes()
    table = parser_table()
    without = [dataclasses.replace(parser, passes_over=None) for parser in dict.fromkeys(table.values())]
    read, unread = EventLog(), EventLog()
    load_trace(io.BytesIO(data), read, without)
    load_trace(io.BytesIO(data), unread)
    assert unread == read


def test_a_passed_over_record_is_counted_and_marked_and_the_one_after_it_read():
    instant = b"".join(
        (
            b'V1127 20:10:53.121000 3267 torch/_dynamo/utils.py:2350] {"chromium_event": {}, "has_payload": "0"}\n',
            b'\t{\n\t"name": "fx_graph_cache_miss",\n\t"ts": 1.5,\n\t"args": {\n\t"key": "k"\n\t},\n',
            b'\t"ph": "i",\n\t"cat": "dynamo_timed",\n\t"tid": 0,\n\t"pid": 0,\n\t"s": "p"\n\t}\n',
            b'V1127 20:10:53.122000 3267 torch/_dynamo/utils.py:2350] {"dynamo_start": {"stack": []}, "frame_id": 0, '
            b'"frame_compile_id": 0}\n',
        )
    )
    health = LogHealth()
    records = list(read_records(io.BytesIO(instant), health, lambda kind: True, lambda kind, end: True))
    assert [(r.kind, r.payload, r.passed_over) for r in records] == [
        ("chromium_event", None, True),  # its md5 ("0") never checked: unread, like an unwanted payload
        ("dynamo_start", None, False),
    ]
    assert health.records == 2 and health.md5_mismatches == 0 and health.problems == 0
    log = EventLog()
    load_trace(io.BytesIO(instant), log)
    assert log.compile_spans == [] and len(log.dynamo_starts) == 1 and log.health.parse_errors == 0
