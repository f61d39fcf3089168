"""torch's compile spans (`chromium_event`) read from the trace and nested per compile, for the HTML page's
timeline and its Perfetto file: every begin/end kept (instants not), ends paired with their begins, depths as
torch nested them, and the C++ compile split out as before."""

from __future__ import annotations

from support.paths import DATA

from torchcompile_doctor.analysis.compile_time_breakdown import cpp_compile_seconds, nested_spans
from torchcompile_doctor.events.load import load_artifacts
from torchcompile_doctor.events.model import CompileId, CompileSpan
from torchcompile_doctor.events.parsers import NOT_AN_EVENT
from torchcompile_doctor.events.parsers.chromium_event import parse
from torchcompile_doctor.events.reader import Record

CAPTURE = DATA / "captures" / "int_arg_recompile_limit"


def _record(payload: str) -> Record:
    return Record(kind="chromium_event", meta={}, payload=payload, line_no=1)


def test_every_begin_and_end_is_kept_and_instants_are_not():
    span = parse(_record('{"name": "bytecode_tracing", "ts": 5.5, "ph": "B", "args": {"compile_id": "1/2"}}'), {})
    assert span == CompileSpan(CompileId(1, 2), "bytecode_tracing", "B", 5.5)
    assert parse(_record('{"name": "fx_graph_cache_miss", "ts": 5, "ph": "i", "args": {}}'), {}) is NOT_AN_EVENT
    assert parse(_record('{"name": "gc", "ph": "E"}'), {}) is None  # no time: a parse error, counted
    assert parse(_record("not json"), {}) is None


def test_spans_nest_by_what_was_open_when_they_began():
    one, two = CompileId(0, 0), CompileId(0, 1)
    spans = [
        CompileSpan(one, "dynamo", "B", 1_000_000),
        CompileSpan(one, "entire_frame_compile", "B", 1_100_000),
        CompileSpan(two, "dynamo", "B", 1_150_000),  # another compile's spans do not nest in this one's
        CompileSpan(one, "bytecode_tracing", "B", 1_200_000),
        CompileSpan(one, "bytecode_tracing", "E", 1_500_000),
        CompileSpan(one, "build_guards", "B", 1_600_000),
        CompileSpan(one, "build_guards", "E", 1_700_000),
        CompileSpan(one, "gc", "E", 1_750_000),  # an end without a begin: left out
        CompileSpan(one, "entire_frame_compile", "E", 1_800_000),
        CompileSpan(one, "dynamo", "E", 1_900_000),
        CompileSpan(None, "compile_file", "B", 1_300_000),  # a worker's: no compile to put it in
        CompileSpan(two, "dynamo", "E", 2_150_000),
        CompileSpan(two, "backend_compile", "B", 2_200_000),  # left open by a crash: left out
    ]
    nested = nested_spans(spans, origin_s=1.0)
    assert [(s.name, s.depth, round(s.start_s, 3), round(s.seconds, 3)) for s in nested[one]] == [
        ("dynamo", 0, 0.0, 0.9),
        ("entire_frame_compile", 1, 0.1, 0.7),
        ("bytecode_tracing", 2, 0.2, 0.3),
        ("build_guards", 2, 0.6, 0.1),
    ]
    assert [(s.name, s.depth, s.seconds) for s in nested[two]] == [("dynamo", 0, 1.0)]


def test_a_real_capture_gives_each_compile_its_spans_and_the_cpp_compile_is_unchanged():
    log = load_artifacts(CAPTURE)
    names = {span.name for span in log.compile_spans}
    assert {"dynamo", "entire_frame_compile", "bytecode_tracing", "build_guards"} <= names
    nested = nested_spans(log.compile_spans, origin_s=0.0)
    assert len(nested) == 9  # the nine compiles of warmup_sgd_update, the refused one included
    for spans in nested.values():
        outer = [s for s in spans if s.depth == 0]
        assert [s.name for s in outer] == ["dynamo"]
        inner = [s for s in spans if s.depth > 0]
        assert all(outer[0].start_s <= s.start_s <= outer[0].start_s + outer[0].seconds for s in inner)
    assert cpp_compile_seconds(log.compile_spans) == {}  # an eager run compiles no C++ kernel
