"""Property-based tests (hypothesis) of the trace reader, every event parser and the depyf-dump reader, on
damaged copies of the real logs and dumps checked in under tests/data.

The damage goes into one record (one dump file) at a time, so each property can say exactly what must
survive: every event of every other record, in order, and no exception. Interned strings (`{"str": ...}`
records) are the one dependency between records: damaging one may rename a file in a `dynamo_start`
stack, so those records are damaged by their own, weaker property.

Short by default (a few seconds in all); `DOCTOR_FUZZ_EXAMPLES=N` runs every property N times, the long
campaign (`DOCTOR_FUZZ_EXAMPLES=20000 pytest tests/test_fuzz.py`).
"""

from __future__ import annotations

import dataclasses
import functools
import io
import json
import os
import tempfile
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from support.paths import DATA

from torchcompile_doctor.events import reader
from torchcompile_doctor.events.dumps.depyf_dump import read_dump
from torchcompile_doctor.events.dumps.layout import GUARD_TREE_NAME, OBSERVE_HEADER
from torchcompile_doctor.events.load import load_trace
from torchcompile_doctor.events.model import EventLog, LogHealth
from torchcompile_doctor.events.parsers import NOT_AN_EVENT, default_parsers
from torchcompile_doctor.events.reader import Record, read_records

DATA = DATA
# seeds must read cleanly: of the multi-rank logs only rank 0's (rank 1's is cut on purpose), for its DDP splits
TRACE_FILES = (
    sorted((DATA / "traces").glob("*.log"))
    + sorted((DATA / "captures").glob("*/trace/*.log"))
    + sorted((DATA / "traces" / "multirank").glob("*rank_0_*.log"))
)
DUMPS = DATA / "depyf_dumps"


def fuzz(default: int):
    """Hypothesis settings: `default` examples, or DOCTOR_FUZZ_EXAMPLES for the long campaign."""
    return settings(
        max_examples=int(os.environ.get("DOCTOR_FUZZ_EXAMPLES", default)),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


# --- the seeds: real logs, split into records --------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Seed:
    name: str
    records: tuple[bytes, ...]  # each: its envelope line and payload lines, final newline included
    interned: tuple[bool, ...]  # per record: an interned string (`{"str": ...}`)

    @property
    def data(self) -> bytes:
        return b"".join(self.records)


def split_records(data: bytes) -> list[bytes]:
    records: list[bytes] = []
    for line in data.split(b"\n")[:-1]:
        if line.startswith(b"\t") and records:
            records[-1] += line + b"\n"
        else:
            records.append(line + b"\n")
    return records


SEEDS = []
for _path in TRACE_FILES:
    _records = split_records(_path.read_bytes())
    assert b"".join(_records) == _path.read_bytes()
    SEEDS.append(Seed(_path.name, tuple(_records), tuple(b'] {"str": ' in r.split(b"\n", 1)[0] for r in _records)))


def load(data: bytes) -> EventLog:
    log = EventLog()
    load_trace(io.BytesIO(data), log)
    return log


def events(log: EventLog) -> dict[str, list]:
    return {f.name: getattr(log, f.name) for f in dataclasses.fields(log) if f.name != "health"}


@functools.cache
def events_without(seed: int, index: int) -> dict[str, list]:
    """The events of a seed with record `index` left out (-1: none left out)."""
    records = SEEDS[seed].records
    return events(load(b"".join(records[:index] + records[index + 1 :] if index >= 0 else records)))


@functools.cache
def events_before(seed: int, count: int) -> dict[str, list]:
    return events(load(b"".join(SEEDS[seed].records[:count])))


def assert_kept(expected: dict[str, list], log: EventLog, skip: tuple[str, ...] = ()) -> None:
    """Every expected event is in the log, in the same order (the damaged record may add its own)."""
    found = events(log)
    for name, wanted in expected.items():
        if name in skip:
            continue
        remaining = iter(found[name])
        for event in wanted:
            assert any(event == other for other in remaining), f"{name}: lost {event!r:.400}"


def assert_lines_counted(data: bytes, health: LogHealth, record_ends: tuple[int, ...] = ()) -> None:
    assert health.lines == data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    # a last line without its newline truncates the log only when it leaves its record incomplete: a cut just
    # before a record's final newline leaves the record whole
    whole = len(data) + 1 in record_ends
    assert health.truncated == (bool(data) and not data.endswith(b"\n") and not whole)


def test_every_seed_reads_clean():
    assert len(SEEDS) == 13  # incl. repeated_blocks.py under inductor (cold and warm cache) and fullgraph_failure.log
    for index, seed in enumerate(SEEDS):
        log = load(seed.data)
        assert log.health.problems == 0, (seed.name, log.health)
        assert log.health.records == len(seed.records)
        assert events_without(index, -1) == events(log)


seeds = st.integers(0, len(SEEDS) - 1)
# bytes that mean something to the format, and any byte
interesting_bytes = st.one_of(
    st.sampled_from([0x09, 0x0A, 0x0D, 0x00, 0x20, 0x22, 0x5B, 0x5D, 0x7B, 0x7D, 0x56, 0x5C, 0xC3, 0xFF]),
    st.integers(0, 255),
)


def pick_record(data, seed: int, interned: bool = False) -> int:
    choices = [i for i, flag in enumerate(SEEDS[seed].interned) if flag == interned]
    assume(choices)
    return data.draw(st.sampled_from(choices), label="record")


def with_record(seed: int, index: int, replacement: bytes) -> bytes:
    records = SEEDS[seed].records
    return b"".join(records[:index]) + replacement + b"".join(records[index + 1 :])


# --- the reader and the parsers together, on damaged logs --------------------------------------


@fuzz(40)
@given(seeds, st.data())
def test_a_truncated_log_keeps_every_record_before_the_cut(seed, data):
    records = SEEDS[seed].records
    ends = [len(b"".join(records[: i + 1])) for i in range(len(records))]
    total = ends[-1]
    cut = data.draw(
        st.one_of(
            st.integers(0, total),
            st.builds(lambda end, delta: min(max(end + delta, 0), total), st.sampled_from(ends), st.integers(-3, 3)),
        ),
        label="cut",
    )
    damaged = SEEDS[seed].data[:cut]
    log = load(damaged)
    assert_kept(events_before(seed, sum(1 for end in ends if end <= cut)), log)
    assert_lines_counted(damaged, log.health, tuple(ends))


@fuzz(40)
@given(seeds, st.data())
def test_flipped_bytes_in_one_record_lose_no_other_record(seed, data):
    index = pick_record(data, seed)
    record = bytearray(SEEDS[seed].records[index])
    # anywhere but the record's final newline, which belongs to the boundary with the next record
    spot = st.one_of(st.integers(0, len(record) - 2), st.integers(0, min(80, len(record) - 2)))
    for position, value in data.draw(st.lists(st.tuples(spot, interesting_bytes), min_size=1, max_size=4)):
        record[position] = value
    damaged = with_record(seed, index, bytes(record))
    log = load(damaged)
    assert_kept(events_without(seed, index), log)
    assert_lines_counted(damaged, log.health)


junk = st.one_of(
    st.binary(max_size=400),
    st.binary(max_size=200).map(lambda b: b"\t" + b),  # looks like payload
    st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass")),
    st.just(b"\n"),
    st.just(b"\t\n"),
    st.just(b"\xff\xfe\x00garbage\r\n"),
)


@fuzz(40)
@given(seeds, junk, st.data())
def test_junk_inserted_into_one_record_or_between_records_loses_no_other(seed, garbage, data):
    index = pick_record(data, seed)
    record = SEEDS[seed].records[index]
    # at the record's start (it may merge with its envelope), or inside it
    at = data.draw(st.one_of(st.just(0), st.integers(0, len(record) - 1)), label="at")
    damaged = with_record(seed, index, record[:at] + garbage + record[at:])
    log = load(damaged)
    assert_kept(events_without(seed, index), log)
    assert_lines_counted(damaged, log.health)


def test_an_envelope_that_joins_the_record_before_it_loses_none_of_that_record_s_events():
    """Found by the test above: a tab written before a record's envelope makes it and its payload look like more
    payload of the record before; that record's own end (an instant span, which is passed over unread) was then
    read from the joined lines' end, and the record before (a span's begin) was lost with it."""
    seed = next(i for i, s in enumerate(SEEDS) if s.name == "recompile_limit.log")
    index = next(
        i
        for i, record in enumerate(SEEDS[seed].records)
        if b'"name": "automatic_dynamic"' in record and b'"ph": "B"' in SEEDS[seed].records[i - 1]
    )
    log = load(with_record(seed, index, b"\t" + SEEDS[seed].records[index]))
    assert_kept(events_without(seed, index), log)
    assert log.health.bad_lines > 0  # the joined lines are told as not that record's own


@fuzz(25)
@given(seeds, st.data())
def test_a_copy_of_a_record_pasted_into_another_loses_no_other(seed, data):
    """An interleaved writer: part of one record lands inside another."""
    index = pick_record(data, seed)
    records = SEEDS[seed].records
    source = records[data.draw(st.integers(0, len(records) - 1), label="source")]
    piece = source[: data.draw(st.integers(0, len(source)), label="piece")]
    record = records[index]
    at = data.draw(st.integers(0, len(record) - 1), label="at")
    damaged = with_record(seed, index, record[:at] + piece + record[at:])
    log = load(damaged)
    assert_kept(events_without(seed, index), log)
    assert_lines_counted(damaged, log.health)


@fuzz(25)
@given(seeds, st.randoms(use_true_random=False))
def test_records_in_another_order_give_the_same_events(seed, rng):
    """Whole records reordered (interned strings first, as torch writes them before their first use)."""
    records = SEEDS[seed].records
    strings = [r for r, interned in zip(records, SEEDS[seed].interned, strict=True) if interned]
    rest = [r for r, interned in zip(records, SEEDS[seed].interned, strict=True) if not interned]
    rng.shuffle(rest)
    log = load(b"".join(strings + rest))
    clean = events_without(seed, -1)
    for name, found in events(log).items():
        assert Counter(map(repr, found)) == Counter(map(repr, clean[name])), name
    assert log.health.problems == 0 and log.health.records == len(records)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=10**20)
    | st.floats()
    | st.text(max_size=30)
    | st.sampled_from(["0/1", "²/1", "1/", "", "GuardManager", "[", "Graph break in user code at x.py:1"]),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4),
    max_leaves=12,
)


def _paths(value, path=()) -> list[tuple]:
    """Every place inside a JSON value (not the value itself), as key/index paths."""
    inner = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    found = []
    for key, child in inner:
        found.append((*path, key))
        found += _paths(child, (*path, key))
    return found


def damage_json(value, data):
    """`value` with one place inside it (any depth, chosen evenly) given a value of any type, or dropped."""
    paths = _paths(value)
    if not paths:
        return value
    path = data.draw(st.sampled_from(paths), label="path")
    drop = data.draw(st.integers(0, 9), label="drop") == 0
    replacement = None if drop else data.draw(json_values, label="value")

    def rebuild(node, rest):
        key, rest = rest[0], rest[1:]
        copy = dict(node) if isinstance(node, dict) else list(node)
        if rest:
            copy[key] = rebuild(node[key], rest)
        elif drop:
            del copy[key]
        else:
            copy[key] = replacement
        return copy

    return rebuild(value, path)


def envelope_and_payload(record: bytes) -> tuple[bytes, dict, bytes]:
    line, _, payload = record.partition(b"\n")
    prefix, _, body = line.partition(b"] ")
    return prefix + b"] ", json.loads(body), payload


@fuzz(40)
@given(seeds, st.data())
def test_wrong_types_in_one_envelope_lose_no_other_record(seed, data):
    index = pick_record(data, seed)
    prefix, meta, payload = envelope_and_payload(SEEDS[seed].records[index])
    for _ in range(data.draw(st.integers(1, 3), label="damages")):
        meta = damage_json(meta, data)
    text = json.dumps(meta, allow_nan=True)
    depth = data.draw(st.one_of(st.just(0), st.integers(1, 50_000)), label="nesting")
    if depth:  # a value nested deeper than any recursive decoder goes
        text = text[:-1] + ', "deep": ' + "[" * depth + "]" * depth + "}"
    line = prefix + text.encode() + b"\n"
    damaged = with_record(seed, index, line + payload)
    log = load(damaged)
    assert_kept(events_without(seed, index), log)
    assert_lines_counted(damaged, log.health)


@fuzz(20)
@given(seeds, st.data())
def test_a_damaged_interned_string_renames_at_most_a_stack_file(seed, data):
    index = pick_record(data, seed, interned=True)
    prefix, meta, payload = envelope_and_payload(SEEDS[seed].records[index])
    if data.draw(st.booleans(), label="flip"):
        record = bytearray(SEEDS[seed].records[index])
        position = data.draw(st.integers(0, len(record) - 2), label="position")
        record[position] = data.draw(interesting_bytes, label="byte")
        replacement = bytes(record)
    else:
        replacement = prefix + json.dumps(damage_json(meta, data)).encode() + b"\n" + payload
    log = load(with_record(seed, index, replacement))
    assert_kept(events_without(seed, index), log, skip=("dynamo_starts",))
    clean_starts = events_without(seed, -1)["dynamo_starts"]
    assert [(s.compile_id, [f.line for f in s.stack]) for s in log.dynamo_starts] == [
        (s.compile_id, [f.line for f in s.stack]) for s in clean_starts
    ]


@fuzz(30)
@given(st.binary(max_size=3000))
def test_random_bytes_never_raise(data):
    log = load(data)
    assert_lines_counted(data, log.health)


@fuzz(30)
@given(seeds, st.integers(1, 5000), st.lists(st.tuples(st.integers(0, 10**9), interesting_bytes), max_size=6))
def test_the_block_size_never_changes_what_is_read(seed, block, flips):
    buffer = bytearray(SEEDS[seed].data)
    for position, value in flips:
        buffer[position % len(buffer)] = value
    data = bytes(buffer)

    def read() -> tuple[list[Record], LogHealth]:
        health = LogHealth()
        return list(read_records(io.BytesIO(data), health)), health

    expected = read()
    original = reader.BLOCK_BYTES
    reader.BLOCK_BYTES = block
    try:
        assert read() == expected
    finally:
        reader.BLOCK_BYTES = original


# --- each parser on its own ---------------------------------------------------------------------

PARSERS = [(kind, parser) for parser in default_parsers() for kind in sorted(parser.kinds)]


@functools.cache
def real_records(kind: str) -> tuple[Record, ...]:
    found = []
    for path in TRACE_FILES:
        with path.open("rb") as stream:
            found += [r for r in read_records(stream, LogHealth()) if r.kind == kind]
    return tuple(found[:40])


def test_every_parser_has_real_records_to_start_from():
    missing = {kind for kind, _ in PARSERS if not real_records(kind)}
    # no checked-in log bypassed a cache: those records are fuzzed from another envelope's fields
    assert missing == {"artifact:fx_graph_cache_bypass", "artifact:aotautograd_cache_bypass"}


payloads = st.one_of(
    st.none(),
    st.text(max_size=300),
    json_values.map(json.dumps),
    st.integers(1, 5000).map(lambda n: "[" * n),
    st.sampled_from(["GuardManager\n+- X: 1  # ", '{"pytorch_version": 2}']),
    st.integers(1, 6000).map(lambda n: f"Graph break in user code at f.py:{'9' * n}\nUser code traceback:\n"),
)


@fuzz(40)
@given(st.sampled_from(PARSERS), st.data())
def test_every_parser_returns_an_event_or_none_and_never_raises(kind_and_parser, data):
    kind, parser = kind_and_parser
    originals = real_records(kind) or real_records("dynamo_output_graph")
    original = data.draw(st.sampled_from(originals), label="record")
    meta = original.meta
    for _ in range(data.draw(st.integers(1, 3), label="damages")):
        meta = damage_json(meta, data)
    how = data.draw(st.sampled_from(["keep", "cut", "replace"]), label="payload")
    payload = original.payload
    if how == "cut" and payload:
        payload = payload[: data.draw(st.integers(0, len(payload)), label="cut")]
    elif how == "replace":
        payload = data.draw(payloads, label="new payload")
    strings = data.draw(st.dictionaries(st.integers(), st.text(max_size=20), max_size=3), label="strings")
    result = parser.parse(Record(kind, meta, payload, 1), strings)
    assert result is None or result is NOT_AN_EVENT or dataclasses.is_dataclass(result)


# --- the depyf dump reader ----------------------------------------------------------------------


def _observe_dump_seed() -> dict[str, bytes]:
    """An observe-hook dump (guard trees with their JSON header) made from the real guard trees of a log."""
    files = {}
    with (DATA / "traces" / "dtype_shape_recompile.log").open("rb") as stream:
        trees = [r for r in read_records(stream, LogHealth()) if r.kind == "dynamo_cpp_guards_str"]
    for index, tree in enumerate(trees):
        header = {"function": "f", "file": "/x/m.py", "line": 3, "compile_id": f"0/{index}"}
        text = OBSERVE_HEADER + json.dumps(header) + "\n" + tree.payload + "\n"
        files[GUARD_TREE_NAME.format(index=index, function="f")] = text.encode()
    return files


DUMP_SEEDS = {
    "module_counter": {p.name: p.read_bytes() for p in (DUMPS / "module_counter").iterdir()},
    "graph_break_dtype": {p.name: p.read_bytes() for p in (DUMPS / "graph_break_dtype").iterdir()},
    "observe": _observe_dump_seed(),
}


def _entries(frames) -> dict[tuple[str, str, int], tuple]:
    return {(e.source_file, f.function, e.index): (e.guards, e.comments, e.kinds) for f in frames for e in f.entries}


def _code_files(frames) -> set[str]:
    return {name for f in frames for name in f.code_files}


@functools.cache
def clean_dump(name: str):
    with tempfile.TemporaryDirectory() as tmp:
        for file, content in DUMP_SEEDS[name].items():
            (Path(tmp) / file).write_bytes(content)
        return read_dump(Path(tmp))


def test_dump_seeds_read_clean():
    for name in DUMP_SEEDS:
        frames, health = clean_dump(name)
        assert health.skipped == 0 and health.syntax_errors == 0, (name, health)
        assert _entries(frames)


@fuzz(30)
@given(st.sampled_from(sorted(DUMP_SEEDS)), st.data())
def test_a_damaged_dump_file_loses_nothing_from_the_others(name, data):
    files = DUMP_SEEDS[name]
    target = data.draw(st.sampled_from(sorted(files)), label="file")
    content = bytearray(files[target])
    ways = ["cut", "flip", "insert", "replace"] + (["header"] if content.startswith(OBSERVE_HEADER.encode()) else [])
    how = data.draw(st.sampled_from(ways), label="how")
    if how == "header":  # wrong types in the observe hook's JSON header
        first, _, rest = bytes(content).partition(b"\n")
        header = damage_json(json.loads(first[len(OBSERVE_HEADER) :]), data)
        text = json.dumps(header)
        depth = data.draw(st.one_of(st.just(0), st.integers(1, 50_000)), label="nesting")
        if depth:
            text = text[:-1] + ', "deep": ' + "[" * depth + "]" * depth + "}"
        content = bytearray(OBSERVE_HEADER.encode() + text.encode() + b"\n" + rest)
    elif how == "cut":
        del content[data.draw(st.integers(0, len(content)), label="cut") :]
    elif how == "flip":
        for position, value in data.draw(st.lists(st.tuples(st.integers(0, 10**9), interesting_bytes), min_size=1)):
            content[position % len(content)] = value
    elif how == "insert":
        # anywhere, or near the start (the observe hook's JSON header line)
        at = data.draw(st.one_of(st.integers(0, len(content)), st.integers(0, min(120, len(content)))), label="at")
        inserted = data.draw(
            st.one_of(
                st.binary(max_size=100),
                st.sampled_from([b"(" * 300, b"[" * 5000, b"\x00", b"\xff\xfe", b"\ndef broken(:\n"]),
                st.just(b"\n    return __guard_hit\n"),
                st.text(max_size=100).map(str.encode),
            ),
            label="inserted",
        )
        content[at:at] = inserted
    else:
        content = bytearray(data.draw(st.binary(max_size=500), label="content"))
    with tempfile.TemporaryDirectory() as tmp:
        for file, original in files.items():
            (Path(tmp) / file).write_bytes(bytes(content) if file == target else original)
        frames, health = read_dump(Path(tmp))
    clean_frames, _ = clean_dump(name)
    expected = {key: value for key, value in _entries(clean_frames).items() if key[0] != target}
    found = _entries(frames)
    assert {key: found.get(key) for key in expected} == expected
    assert _code_files(clean_frames) - {target} <= _code_files(frames)
    assert health.files == len(files)


@fuzz(15)
@given(st.data())
def test_dump_files_of_any_name_are_never_run(data):
    """File names the reader dispatches on, with content that would leave a marker if it ever ran."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "dump"
        root.mkdir()
        marker = Path(tmp) / "RAN"
        payload = f"__import__('pathlib').Path({str(marker)!r}).touch()"
        names = data.draw(
            st.lists(
                st.sampled_from(
                    [
                        "full_code_for_f_0.py",
                        "__transformed_code_0_for_f.py",
                        GUARD_TREE_NAME.format(index=0, function="f"),
                        "__transformed_code_0_for_f.py.failed.txt",
                        "__compiled_fn_1.x.py",
                        "__init__.py",
                        "sitecustomize.py",
                    ]
                ),
                min_size=1,
                unique=True,
            ),
            label="names",
        )
        for file in names:
            body = data.draw(
                st.sampled_from(
                    [
                        payload + "\n",
                        f"def __guard_0_for_f(L, G, **___kwargs_ignored):\n    __guard_hit = True\n"
                        f"    __guard_hit = __guard_hit and {payload}\n    return __guard_hit\n",
                        f"@{payload.replace('.touch()', '.touch')}\ndef f(x=({payload})):\n    pass\n",
                        f"class C:\n    {payload}\n",
                        f"+- LAMBDA_GUARD: {payload}  # x  # m.py:1 in f\n",
                    ]
                ),
                label="body",
            )
            (root / file).write_text(body)
        read_dump(root)
        assert not marker.exists()
