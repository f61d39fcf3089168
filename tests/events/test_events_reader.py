"""The tolerant TORCH_TRACE reader on real checked-in logs, their damaged copies, and fuzzed bytes."""

from __future__ import annotations

import dataclasses
import hashlib
import io
import random
import re
import shutil
import tracemalloc

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.doctor import doctor_in_process
from support.paths import DATA

from torchcompile_doctor.errors import DoctorError
from torchcompile_doctor.events import reader
from torchcompile_doctor.events.load import load_artifacts, load_trace, refuse_nothing_read
from torchcompile_doctor.events.model import EventLog, LogHealth
from torchcompile_doctor.events.reader import read_records

TRACES = DATA / "traces"
CORRUPTED = TRACES / "corrupted"


def load_bytes(data: bytes) -> EventLog:
    log = EventLog()
    load_trace(io.BytesIO(data), log)
    return log


def read_all(data: bytes, wants=lambda kind: True) -> tuple[list[reader.Record], LogHealth]:
    health = LogHealth()
    return list(read_records(io.BytesIO(data), health, wants)), health


def events(log: EventLog) -> dict[str, list]:
    """Every typed event list of a log (health left out), for clean-vs-damaged comparisons."""
    return {f.name: getattr(log, f.name) for f in dataclasses.fields(log) if f.name != "health"}


# --- clean logs -------------------------------------------------------------------------------

# name: (lines, records, graph breaks, recompiles, compiles, dynamo_starts, output graphs)
CLEAN = {
    "graph_break_print": (695, 59, 1, 0, 2, 2, 2),
    "item_recompile": (3218, 292, 6, 2, 6, 6, 5),
    "frame_skipped_loop": (372, 20, 1, 0, 1, 1, 0),
    "dtype_shape_recompile": (777, 74, 0, 2, 3, 3, 3),
    "recompile_limit": (2783, 225, 0, 8, 9, 8, 8),
    "fullgraph_failure": (229, 16, 0, 0, 1, 1, 0),
    # its WON'T CONVERT record repeats the GB0219 break and is skipped (test_events_parsers.py)
    "backend_exception": (406, 26, 1, 0, 1, 1, 1),
}


@pytest.mark.parametrize("name", sorted(CLEAN))
def test_clean_log_counts(name):
    lines, records, breaks, recompiles, compiles, starts, graphs = CLEAN[name]
    log = load_artifacts(TRACES / f"{name}.log")
    health = log.health
    assert (health.lines, health.records) == (lines, records)
    assert (health.bad_lines, health.bad_json, health.md5_mismatches, health.unknown_kinds) == (0, 0, 0, 0)
    assert health.truncated is False
    assert len(log.graph_breaks) == breaks
    assert len(log.recompiles) == recompiles
    assert len(log.metrics) == compiles
    assert len(log.dynamo_starts) == starts
    assert len(log.output_graphs) == graphs
    assert [v.version for v in log.torch_versions] == ["2.13.0+cpu"]


@pytest.mark.parametrize("name", sorted(CLEAN))
def test_clean_log_has_no_parse_errors(name):
    assert load_artifacts(TRACES / f"{name}.log").health.parse_errors == 0


def test_read_records_sees_every_envelope_of_a_clean_log():
    data = (TRACES / "dtype_shape_recompile.log").read_bytes()
    records, health = read_all(data)
    envelopes = [i for i, line in enumerate(data.split(b"\n"), start=1) if line.startswith(b"V")]
    assert [r.line_no for r in records] == envelopes
    assert health.records == len(records) == 74
    kinds = [r.kind for r in records]
    assert kinds.count("artifact:recompile_reasons") == 2
    assert kinds.count("compilation_metrics") == 3
    assert kinds.count("artifact:torch_version") == 1


def test_load_artifacts_merges_every_log_of_a_directory(tmp_path):
    shutil.copy(TRACES / "graph_break_print.log", tmp_path / "rank0.log")
    (tmp_path / "sub").mkdir()
    shutil.copy(TRACES / "dtype_shape_recompile.log", tmp_path / "sub" / "rank1.log")
    (tmp_path / "notes.txt").write_text("not a trace")
    log = load_artifacts(tmp_path)
    assert log.health.records == 59 + 74
    assert len(log.graph_breaks) == 1
    assert len(log.recompiles) == 2
    assert len(log.metrics) == 2 + 3


def test_crlf_line_endings_read_the_same():
    data = (TRACES / "item_recompile.log").read_bytes()
    clean, crlf = load_bytes(data), load_bytes(data.replace(b"\n", b"\r\n"))
    assert crlf.health.md5_mismatches == 0
    assert events(crlf) == events(clean)


# --- damaged copies (tests/data/traces/corrupted, made by make_corrupted.py) ---------------------


@pytest.fixture(scope="module")
def clean_print_log() -> EventLog:
    return load_artifacts(TRACES / "graph_break_print.log")


# name: (extra lines, LogHealth fields that differ from the clean log)
DAMAGED = {
    "garbage_binary_line.log": (1, {"bad_lines": 1}),
    "broken_json_envelope.log": (1, {"bad_json": 1}),
    "unknown_kind.log": (3, {"records": 60, "unknown_kinds": 1}),
    "payload_before_envelope.log": (1, {"bad_lines": 1}),
}


@pytest.mark.parametrize("name", sorted(DAMAGED))
def test_damage_is_counted_and_every_valid_event_is_still_found(name, clean_print_log):
    extra_lines, changed = DAMAGED[name]
    log = load_artifacts(CORRUPTED / name)
    expected = dataclasses.replace(clean_print_log.health, lines=clean_print_log.health.lines + extra_lines, **changed)
    assert log.health == expected
    # the damage sits just before the graph-break record: records on both sides survive
    assert events(log) == events(clean_print_log)
    assert log.graph_breaks[0].gb_id == "GB0059"


def test_md5_mismatch_drops_only_the_altered_record(clean_print_log):
    log = load_artifacts(CORRUPTED / "md5_mismatch.log")
    assert log.health.md5_mismatches == 1
    assert log.health.records == clean_print_log.health.records - 1
    assert log.health.parse_errors == 0
    assert log.graph_breaks == []  # the altered payload is not trusted, not half-parsed
    expected = events(clean_print_log) | {"graph_breaks": []}
    assert events(log) == expected


def test_md5_is_only_checked_for_payloads_asked_for():
    data = (CORRUPTED / "md5_mismatch.log").read_bytes()
    records, health = read_all(data, wants=lambda kind: kind == "artifact:torch_version")
    assert health.md5_mismatches == 0
    broken = [r for r in records if r.kind == "artifact:dynamo_graph_break_reason"]
    assert len(broken) == 1 and broken[0].payload is None


@pytest.mark.parametrize("damage", ["tab_line_after", "envelope_starts_with_a_tab"])
def test_lines_that_look_like_payload_after_a_record_do_not_cost_it_its_payload(damage, clean_print_log):
    """Found by tests/test_fuzz.py: a stray tab line after a record whose payload is wanted made its md5
    fail and the record (here the graph break) was lost; the lines the md5 vouches for are its payload."""
    data = (TRACES / "graph_break_print.log").read_bytes()
    start = data.index(b'"name": "dynamo_graph_break_reason"')
    end = data.index(b"\nV", start) + 1  # the start of the next record's envelope
    if damage == "tab_line_after":
        damaged, extra_lines, bad_lines = data[:end] + b"\tnot its payload\n" + data[end:], 1, 1
    else:  # the next record's envelope (and its payload lines) join the graph break's payload
        next_lines = data[end : data.index(b"\nV", end) + 1].count(b"\n")
        damaged, extra_lines, bad_lines = data[:end] + b"\t" + data[end + 1 :], 0, next_lines
    log = load_bytes(damaged)
    assert log.graph_breaks == clean_print_log.graph_breaks
    assert (log.health.md5_mismatches, log.health.bad_lines) == (0, bad_lines)
    assert log.health.lines == clean_print_log.health.lines + extra_lines


def test_truncated_mid_line_keeps_everything_before_the_cut(clean_print_log):
    data = (CORRUPTED / "truncated_mid_line.log").read_bytes()
    assert not data.endswith(b"\n")
    log = load_bytes(data)
    assert log.health.truncated is True
    assert log.health.bad_json == 1  # the half-written compilation_metrics envelope
    assert (log.health.bad_lines, log.health.md5_mismatches, log.health.parse_errors) == (0, 0, 0)
    # the cut fell in the last compilation_metrics (1/0): it and what followed are gone, the rest is intact
    clean_records, _ = read_all((TRACES / "graph_break_print.log").read_bytes())
    cut_line = data.count(b"\n") + 1
    assert log.health.records == sum(1 for r in clean_records if r.line_no < cut_line)
    assert [str(m.compile_id) for m in log.metrics] == ["0/0"]
    assert log.metrics == clean_print_log.metrics[:1]
    after_the_cut = {"metrics": [], "compile_spans": []}  # torch logs spans after the last metrics too
    assert events(log) | after_the_cut == events(clean_print_log) | after_the_cut
    assert log.compile_spans and log.compile_spans == clean_print_log.compile_spans[: len(log.compile_spans)]


def test_unknown_kind_is_counted_not_parsed_and_its_payload_skipped():
    records, health = read_all((CORRUPTED / "unknown_kind.log").read_bytes())
    unknown = [r for r in records if r.kind == "brand_new_event"]
    assert len(unknown) == 1
    assert unknown[0].payload == '{"future": "payload"}\n{"second": "line"}'  # md5 right, payload intact
    assert health.bad_lines == 0  # its payload lines belong to it


def test_payload_not_asked_for_is_not_kept():
    data = (TRACES / "dtype_shape_recompile.log").read_bytes()
    records, health = read_all(data, wants=lambda kind: kind == "artifact:recompile_reasons")
    with_payload = [r for r in records if "has_payload" in r.meta]
    kept = [r for r in with_payload if r.payload is not None]
    assert {r.kind for r in kept} == {"artifact:recompile_reasons"}
    assert len(kept) == 2
    assert len(with_payload) > 20  # chromium events, guards, graphs, metrics... all dropped
    assert kept[0].payload == "0/0: tensor 'x' dtype mismatch. expected Float, actual Double"
    assert health.md5_mismatches == 0


def test_empty_file():
    records, health = read_all(b"")
    assert records == []
    assert health == LogHealth()
    log = load_bytes(b"")
    assert events(log) == events(EventLog())
    assert log.health.problems == 0


def test_random_bytes_never_raise_and_yield_nothing():
    data = random.Random(1234).randbytes(200_000)
    log = load_bytes(data)
    assert events(log) == events(EventLog())
    assert log.health.records == 0
    assert log.health.lines == data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    assert log.health.bad_lines + log.health.bad_json > 0
    assert log.health.problems > 0


def test_what_holds_no_record_is_refused_and_any_record_is_read(tmp_path):
    """The one decision `report`, `check` and `guards` share (issue 34): nothing read is refused in one line
    naming what was given; one record of any kind, known or not, is something to read."""
    nothing = [load_bytes(b""), load_bytes(random.Random(34).randbytes(20_000)), load_bytes(b"epoch 1\nloss 2\n")]
    assert all(log.holds_nothing for log in nothing)
    with pytest.raises(DoctorError) as refused:
        refuse_nothing_read(nothing, [tmp_path / "a", tmp_path / "b"])
    assert (
        str(refused.value)
        == f"nothing to read in {tmp_path / 'a'}, {tmp_path / 'b'}: no trace, no capture, no log records"
    )
    unknown_only = load_bytes(b'V1121 05:39:13.162000 9221 torch/_dynamo/x.py:1] {"brand_new_event": {}}\n')
    assert unknown_only.health.unknown_kinds == 1 and not unknown_only.has_events
    real = load_bytes((TRACES / "graph_break_print.log").read_bytes())
    for log in (unknown_only, real):
        assert not log.holds_nothing
        refuse_nothing_read([*nothing, log], [tmp_path])  # one log with a record: nothing is refused


def test_a_line_longer_than_the_limit_is_skipped_not_loaded(monkeypatch):
    data = (TRACES / "graph_break_print.log").read_bytes()
    limit = 4096
    monkeypatch.setattr(reader, "MAX_LINE_BYTES", limit)
    long_lines = [line for line in data.split(b"\n") if len(line) + 1 > limit]
    # both compilation_metrics envelopes, and two chromium-event payload lines carrying the dynamo config
    assert sorted(line[:1] for line in long_lines) == [b"\t", b"\t", b"V", b"V"]
    assert all(b'{"compilation_metrics"' in line for line in long_lines if line.startswith(b"V"))
    log = load_bytes(data)
    assert log.health.bad_lines == len(long_lines)
    assert log.metrics == []
    assert log.health.truncated is False
    assert len(log.graph_breaks) == 1 and len(log.dynamo_starts) == 2 and len(log.output_graphs) == 2


def test_a_log_damaged_every_way_at_once_still_gives_the_report_of_the_rest(tmp_path):
    """Binary garbage, a non-UTF-8 envelope, an envelope that is not an object, wrong JSON types, a cut
    mid-line: counted in the log health of `doctor report`, and every break and recompile is reported."""
    clean = (TRACES / "item_recompile.log").read_bytes()
    records = clean.split(b"\nV")  # records[1:] lost their leading "V"
    heads = [r.split(b"\n", 1)[0] for r in records]
    chromium = [i for i, head in enumerate(heads) if b'] {"chromium_event"' in head][:2]
    metrics = next(i for i, head in enumerate(heads) if b'] {"compilation_metrics"' in head)
    start = next(i for i, head in enumerate(heads) if b'] {"dynamo_start"' in head)
    records[chromium[0]] = records[chromium[0]].replace(b'{"chromium_event"', b'{"chromium_\xff\xfeevent"', 1)
    records[chromium[1]] = (
        heads[chromium[1]].split(b"] ")[0]
        + b'] ["chromium_event", {}]'
        + records[chromium[1]].removeprefix(heads[chromium[1]])
    )
    records[metrics] = re.sub(rb'"frame_id": \d+', b'"frame_id": "zero"', records[metrics], count=1)
    records[start] = records[start].replace(b'"stack": [', b'"stack": 7, "was": [', 1)
    damaged = b"\nV".join(records[:-1]) + b"\n\x00\x9c\xff garbage\n\t\xff orphan payload\nV" + records[-1][:40]
    path = tmp_path / "damaged.log"
    path.write_bytes(damaged)
    run = doctor_in_process("report", str(path), "--format", "json")
    assert run.returncode in (0, 1), run.stderr
    report, expected = (
        run.json,
        doctor_in_process("report", str(TRACES / "item_recompile.log"), "--format", "json").json,
    )
    health = report["log_health"]
    orphans = sum(records[i].count(b"\n\t") for i in chromium)  # the payload lines of the two bad envelopes
    # bad lines: the garbage, the orphan payload line, the cut envelope, and the orphaned payload lines
    assert (health["bad_json"], health["bad_lines"], health["truncated"]) == (2, 3 + orphans, True)
    assert (health["md5_mismatches"], health["parse_errors"]) == (0, 0)
    assert health["records"] == expected["log_health"]["records"] - 3
    # the note is worded for people, never the record's fields
    (note,) = [n for n in report["notes"] if n.startswith("log health:")]
    assert note == (
        f"log health: the file ends mid-record (truncated), {3 + orphans} bad line(s), 2 bad JSON envelope(s) in "
        f"{health['lines']} lines; {health['records']} records read (counted and skipped; `doctor report --strict` "
        "makes them an error)."
    )
    assert report["summary"]["graph_break_records"] == expected["summary"]["graph_break_records"]
    assert report["summary"]["recompiles"] == expected["summary"]["recompiles"]
    assert [f["kind"] for f in report["findings"]] == [f["kind"] for f in expected["findings"]]


class _GiantLineThenLog(io.RawIOBase):
    """A 2 GiB line of NUL bytes with no newline, then a real log: without a 2 GiB file on disk."""

    ZEROS = bytes(1 << 20)

    def __init__(self, size: int, tail: bytes) -> None:
        self.left, self.tail = size, io.BytesIO(tail)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if not self.left:
            return self.tail.readinto(buffer)
        count = min(len(buffer), self.left, len(self.ZEROS))
        memoryview(buffer)[:count] = self.ZEROS[:count]
        self.left -= count
        return count


def test_a_2gb_line_is_skipped_in_bounded_memory_and_the_log_after_it_read(monkeypatch, clean_print_log):
    limit = 4 << 20
    monkeypatch.setattr(reader, "MAX_LINE_BYTES", limit)
    stream = _GiantLineThenLog(2 << 30, b"\n" + (TRACES / "graph_break_print.log").read_bytes())
    log = EventLog()
    tracemalloc.start()
    try:
        load_trace(stream, log)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3 * limit
    assert log.health.bad_lines == 1 and log.health.lines == clean_print_log.health.lines + 1
    assert events(log) == events(clean_print_log)


def test_a_too_long_envelope_ends_the_record_before_it(monkeypatch):
    """The long line's payload lines are orphans, not more payload of the record before (whose md5 holds)."""
    payload = b"the reasons"
    before = _record(b'{"artifact": {"name": "recompile_reasons", "encoding": "string"}, "frame_id": 0, ', payload)
    long_one = _record(b'{"dynamo_start": {"stack": [], "pad": "' + b"x" * 400 + b'"}, "frame_id": 1, ', b"p1\np2")
    monkeypatch.setattr(reader, "MAX_LINE_BYTES", 256)
    records, health = read_all(before + long_one)
    assert [(r.kind, r.payload) for r in records] == [("artifact:recompile_reasons", "the reasons")]
    assert (health.bad_lines, health.md5_mismatches, health.lines) == (3, 0, 5)


@pytest.mark.parametrize("limit", [5, 64, 300])
@pytest.mark.parametrize("block", [1, 3, 7, 64, 1000])
def test_long_lines_and_block_edges(monkeypatch, limit, block):
    """Lines of every length around the limit, read in blocks of every size: the same lines are dropped."""
    lines = [b"x" * n for n in (0, 1, limit - 2, limit - 1, limit, limit + 1, 3 * limit, 2, limit * 5 + 3)]
    data = b"\n".join(lines) + b"\n" + b"y" * (limit - 1)
    monkeypatch.setattr(reader, "MAX_LINE_BYTES", limit)
    monkeypatch.setattr(reader, "BLOCK_BYTES", block)
    _, health = read_all(data)
    too_long = sum(1 for line in lines if len(line) + 1 > limit)
    assert health.lines == len(lines) + 1
    assert health.bad_lines == too_long + sum(1 for line in lines if line and len(line) + 1 <= limit) + 1
    assert health.truncated is True


@pytest.mark.parametrize("block", [1, 5, 4096, 65536])
@pytest.mark.parametrize(
    "path",
    [TRACES / "graph_break_print.log", CORRUPTED / "truncated_mid_line.log", CORRUPTED / "garbage_binary_line.log"],
    ids=lambda p: p.name,
)
def test_the_block_size_does_not_change_what_is_read(monkeypatch, path, block):
    data = path.read_bytes()
    expected = read_all(data)
    monkeypatch.setattr(reader, "BLOCK_BYTES", block)
    assert read_all(data) == expected
    assert read_all(data.replace(b"\n", b"\r\n"))[0] == expected[0]


def _record(envelope_head: bytes, payload: bytes) -> bytes:
    """One record: `envelope_head` is the start of its JSON object, has_payload is added to close it."""
    digest = hashlib.md5(payload).hexdigest().encode()
    lines = b"".join(b"\t" + line + b"\n" for line in payload.split(b"\n"))
    envelope = b"V1121 05:39:13.200000 1 torch/_dynamo/x.py:1] " + envelope_head + b'"has_payload": "' + digest
    return envelope + b'"}\n' + lines


def test_an_envelope_nested_too_deep_is_bad_json_not_a_crash():
    """Found by tests/test_fuzz.py: json's decoder raised RecursionError, which escaped the reader."""
    data = (TRACES / "graph_break_print.log").read_bytes()
    deep = b'V1121 05:39:13.200000 1 torch/_dynamo/x.py:1] {"str": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n"
    cut = data.index(b"\nV") + 1
    log = load_bytes(data[:cut] + deep + data[cut:])
    clean = load_bytes(data)
    assert log.health.bad_json == 1 and log.health.records == clean.health.records
    assert events(log) == events(clean)


def test_broken_recompile_reasons_list_is_a_parse_error_not_a_crash():
    payload = b'["0/0: x == 1", "unterminated'
    line = (
        b'V1121 05:39:13.200000 1 torch/_dynamo/guards.py:1] {"artifact": {"name": "recompile_reasons", '
        b'"encoding": "json"}, "frame_id": 0, "frame_compile_id": 1, "attempt": 0, "has_payload": "'
        + hashlib.md5(payload).hexdigest().encode()
        + b'"}\n\t'
        + payload
        + b"\n"
    )
    log = load_bytes(line)
    assert log.recompiles == []
    assert log.health.parse_errors == 1
    assert log.health.records == 1


# --- fuzzing ----------------------------------------------------------------------------------

FUZZ_LOG = (TRACES / "item_recompile.log").read_bytes()
FUZZ_CLEAN = load_bytes(FUZZ_LOG)


def _graph_break_record_ends(data: bytes) -> list[int]:
    """Byte offset just past the last line of each graph-break record (its payload's final newline)."""
    ends, offset, in_break = [], 0, False
    for line in data.splitlines(keepends=True):
        if not line.startswith(b"\t"):
            if in_break:
                ends.append(offset)
            in_break = b'"name": "dynamo_graph_break_reason"' in line
        offset += len(line)
    if in_break:
        ends.append(offset)
    return ends


FUZZ_BREAK_ENDS = _graph_break_record_ends(FUZZ_LOG)


def test_fuzz_fixture_is_what_the_property_assumes():
    assert len(FUZZ_BREAK_ENDS) == len(FUZZ_CLEAN.graph_breaks) == 6


# cuts anywhere, and cuts and flips within a few bytes of a graph-break record's end (the edge cases)
near_a_break_end = st.builds(
    lambda end, delta: min(max(end + delta, 0), len(FUZZ_LOG) - 1),
    st.sampled_from(FUZZ_BREAK_ENDS),
    st.integers(-3, 3),
)
damage = st.one_of(
    st.tuples(st.just("truncate"), st.integers(0, len(FUZZ_LOG))),
    st.tuples(st.just("truncate"), near_a_break_end),
    st.tuples(st.just("flip"), st.lists(st.tuples(near_a_break_end, st.integers(0, 255)), min_size=1, max_size=2)),
    st.tuples(
        st.just("flip"),
        st.lists(st.tuples(st.integers(0, len(FUZZ_LOG) - 1), st.integers(0, 255)), min_size=1, max_size=8),
    ),
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(damage)
def test_damaged_log_never_raises_and_keeps_breaks_before_the_damage(case):
    how, detail = case
    if how == "truncate":
        data = FUZZ_LOG[:detail]
        # a record whose final newline survives the cut is complete
        intact = sum(1 for end in FUZZ_BREAK_ENDS if end <= detail)
    else:
        buffer = bytearray(FUZZ_LOG)
        for position, value in detail:
            buffer[position] = value
        data = bytes(buffer)
        first = min(position for position, _ in detail)
        # the byte after a record's last newline decides whether the next line is more payload
        intact = sum(1 for end in FUZZ_BREAK_ENDS if end + 1 <= first)
    log = load_bytes(data)
    assert log.graph_breaks[:intact] == FUZZ_CLEAN.graph_breaks[:intact]


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=2000), st.integers(0, len(FUZZ_LOG)))
def test_random_bytes_spliced_into_a_real_log_never_raise(junk, position):
    data = FUZZ_LOG[:position] + junk + FUZZ_LOG[position:]
    log = load_bytes(data)
    intact = sum(1 for end in FUZZ_BREAK_ENDS if end + 1 <= position)
    assert log.graph_breaks[:intact] == FUZZ_CLEAN.graph_breaks[:intact]


# --- sessions: a restart after torch._dynamo.reset() against one start record written twice ------------

RESET_TRACE = next((DATA / "recompile_captures" / "dynamo_reset_bench" / "trace").glob("*.log"))


def _records_of(data: bytes) -> list[bytes]:
    """The log's records as written: each envelope line with its payload lines."""
    records: list[bytes] = []
    for line in data.splitlines(keepends=True):
        if line.startswith(b"\t") and records:
            records[-1] += line
        else:
            records.append(line)
    return records


def test_a_start_record_written_twice_opens_no_session_but_a_reset_does():
    """The run called torch._dynamo.reset() twice (3 sessions). A dynamo_start copied whole (an interleaved
    writer) says nothing new: every event keeps its session (the fuzz test's pasted copy found this)."""
    data = RESET_TRACE.read_bytes()
    clean = load_bytes(data)
    assert sorted({s.compile_id.session for s in clean.dynamo_starts}) == [0, 1, 2]
    records = _records_of(data)
    starts = [i for i, r in enumerate(records) if b'{"dynamo_start": ' in r.split(b"\n", 1)[0]]
    for index in (starts[0], starts[len(starts) // 2], starts[-1]):
        for at in (index, index + 1, len(records)):  # the copy before, after, and at the end of the log
            copied = load_bytes(b"".join(records[:at] + [records[index]] + records[at:]))
            assert events(copied) | {"dynamo_starts": []} == events(clean) | {"dynamo_starts": []}
            extra = list(copied.dynamo_starts)
            for start in clean.dynamo_starts:
                extra.remove(start)
            # the copy itself counts in the session it lands in (a copy after a reset lands in a later one)
            original = clean.dynamo_starts[starts.index(index)]
            assert [(s.compile_id.frame_id, s.compile_id.frame_compile_id, s.stack) for s in extra] == [
                (original.compile_id.frame_id, original.compile_id.frame_compile_id, original.stack)
            ]
