"""Event parsers on payloads taken from the real checked-in TORCH_TRACE logs (tests/data/traces)."""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import io
from pathlib import Path

import pytest
from support.captures import trace_root
from support.paths import DATA

from torchcompile_doctor.events.load import load_artifacts, load_trace
from torchcompile_doctor.events.model import (
    CompilationMetrics,
    CompileId,
    DynamoStart,
    EventLog,
    LogHealth,
    StackFrame,
)
from torchcompile_doctor.events.parsers import (
    compilation_metrics,
    dynamo_start,
    guards_tree,
    recompile_reasons,
    torch_version,
)
from torchcompile_doctor.events.parsers import graph_break_reason as gbr
from torchcompile_doctor.events.parsers.graph_break_reason import parse_graph_break_text
from torchcompile_doctor.events.reader import Record, read_records

TRACES = DATA / "traces"
# the folder of the scripts as the logs recorded it (the checkout that made them)
CAPTURED_SCRIPTS = trace_root(DATA / "traces" / "graph_break_print.log")


def records(name: str, kind: str) -> list[Record]:
    with (TRACES / f"{name}.log").open("rb") as stream:
        return [r for r in read_records(stream, LogHealth()) if r.kind == kind]


def break_texts(name: str) -> list[str]:
    return [r.payload for r in records(name, "artifact:dynamo_graph_break_reason")]


def user_frames(stack: tuple[StackFrame, ...]) -> list[tuple[str, int, str, str]]:
    """(file name, line, function, code) of the frames outside torch's own files."""
    return [(Path(f.file).name, f.line, f.function, f.code) for f in stack if "site-packages" not in f.file]


PRINT_HINTS = (
    "Avoid calling builtin `print` with argument types ['str']. Consider using an equivalent alternative "
    "function/method to `print`.",
    "If you are attempting to call a logging function (e.g. `print`), you can try adding it to "
    "`torch._dynamo.config.reorderable_logging_functions`.",
    "Please report an issue to PyTorch.",
)


# --- shape 1: "Graph break in user code at FILE:LINE" -------------------------------------------


def test_print_break_behind_the_encountered_preamble():
    (text,) = break_texts("graph_break_print")
    assert "Graph Break Reason: Encountered graph break when attempting to trace CALL" in text
    fields = parse_graph_break_text(text)
    assert fields.file == f"{CAPTURED_SCRIPTS}/graph_break_print.py"
    assert fields.line == 7
    assert fields.gb_type == "Failed to trace builtin operator"  # not the preamble
    assert fields.gb_id == "GB0059"
    assert fields.explanation == (
        "Dynamo does not know how to trace builtin operator `print` with argument types ['str'] (has_kwargs False)"
    )
    assert fields.hints == PRINT_HINTS
    assert fields.frame_skipped is False
    assert fields.secondary_gb_ids == ()
    # the user code traceback, not torch's internal "Traceback (most recent call last)" after it
    assert user_frames(fields.user_stack) == [
        ("graph_break_print.py", 12, "<module>", "compiled(torch.ones(4))"),
        ("graph_break_print.py", 7, "fn", 'print("inside fn")'),
    ]
    assert len(fields.user_stack) == 2


def test_break_in_loop_behind_failed_to_handle_gracefully_skips_the_frame():
    (text,) = break_texts("frame_skipped_loop")
    assert "Graph Break Reason: Failed to handle graph break gracefully. Skipping the function" in text
    fields = parse_graph_break_text(text)
    assert fields.file == f"{CAPTURED_SCRIPTS}/frame_skipped_loop.py"
    assert fields.line == 8
    assert fields.gb_type == "Failed to trace builtin operator"
    assert fields.gb_id == "GB0059"  # the primary break, not the GB7000 that followed
    assert fields.secondary_gb_ids == ("GB7000",)
    assert fields.frame_skipped is True
    assert fields.explanation.startswith("Dynamo does not know how to trace builtin operator `print`")
    # hints stop at the secondary break: its "may have been caused by an earlier graph break" is not ours
    assert len(fields.hints) == 3
    assert not any("earlier graph break" in hint for hint in fields.hints)
    # "Stack variable source attribution" lists `File "...", line 6` without a function: not a stack frame
    assert user_frames(fields.user_stack) == [
        ("frame_skipped_loop.py", 13, "<module>", "compiled(torch.ones(4))"),
        ("frame_skipped_loop.py", 8, "fn", 'print("step", i)'),
    ]


def test_item_breaks_from_two_call_sites():
    texts = break_texts("item_recompile")
    assert len(texts) == 6
    parsed = [parse_graph_break_text(text) for text in texts]
    for fields in parsed:
        assert fields.gb_type == "Unsupported Tensor.item() call with capture_scalar_outputs=False"
        assert fields.gb_id == "GB0124"
        assert (Path(fields.file).name, fields.line) == ("item_metrics.py", 5)
        assert fields.explanation == (
            "Dynamo does not support tracing `Tensor.item()` with config.capture_scalar_outputs=False."
        )
        assert len(fields.hints) == 1 and "capture_scalar_outputs = True" in fields.hints[0]
        assert fields.frame_skipped is False
        frames = user_frames(fields.user_stack)
        assert frames[0] == ("item_recompile.py", 29, "<module>", "model(x, target, mask)")
        assert frames[-1] == (
            "item_metrics.py",
            5,
            "masked_accuracy",
            "return correct.sum().item() / (mask.sum().item() + 1e-6)",
        )
    # the call site in forward: acc1 (line 18) for the first three compiles, acc2 (line 19) after
    call_lines = [user_frames(f.user_stack)[1][1] for f in parsed]
    assert call_lines == [18, 18, 18, 19, 19, 19]


def test_backend_exception_break_has_no_user_frame_inside_the_function():
    texts = break_texts("backend_exception")
    (text,) = [t for t in texts if t.startswith("Graph break in user code")]
    fields = parse_graph_break_text(text)
    assert fields.gb_type == "Backend compiler exception"
    assert fields.gb_id == "GB0219"
    assert fields.explanation == "Backend compiler `failing_backend` failed with aten.add.Tensor. Adding a graph break."
    assert fields.hints == ("Report an issue to the backend compiler repo.",)
    assert fields.frame_skipped is True
    assert (Path(fields.file).name, fields.line) == ("backend_exception.py", 11)  # torch names `def fn`
    assert user_frames(fields.user_stack) == [
        ("backend_exception.py", 15, "<module>", "torch.compile(fn, backend=failing_backend)(torch.ones(4))")
    ]


def test_graph_break_record_becomes_an_event_with_its_compile_id():
    log = load_artifacts(TRACES / "item_recompile.log")
    assert [str(g.compile_id) for g in log.graph_breaks] == ["0/0", "1/0", "2/0", "3/0", "2/1", "3/1"]
    assert all(g.raw.startswith("Graph break in user code at ") for g in log.graph_breaks)


# --- shape 2: "Graph break: torch.compile cannot properly resume ..." ----------------------------
# torch 2.13 writes it only for an Unsupported raised outside the tracer's loop and only when the
# graph_breaks log is on; no small script triggered it, so the text is torch's template
# (convert_frame.py) around a real user stack and a real exception from frame_skipped_loop.log.


def _cannot_resume_text() -> str:
    (text,) = break_texts("frame_skipped_loop")
    exception = text[text.index("Traceback (most recent call last):") :]
    return (
        "Graph break: torch.compile cannot properly resume from this graph break, which results in a skip.\n"
        f"torch.compile will skip tracing the frame fn ({CAPTURED_SCRIPTS}/frame_skipped_loop.py line 5) "
        "and fall back to eager.\n"
        "The graph break occurred in the following user code:\n"
        f'  File "{CAPTURED_SCRIPTS}/frame_skipped_loop.py", line 8, in fn\n'
        '    print("step", i)\n'
        "\n" + exception
    )


def test_cannot_resume_shape():
    fields = parse_graph_break_text(_cannot_resume_text())
    assert fields.file == f"{CAPTURED_SCRIPTS}/frame_skipped_loop.py"
    assert fields.line == 8
    assert fields.gb_type == "Failed to trace builtin operator"
    assert fields.gb_id == "GB0059"
    assert fields.frame_skipped is True
    assert user_frames(fields.user_stack) == [("frame_skipped_loop.py", 8, "fn", 'print("step", i)')]


def test_cannot_resume_shape_without_user_frames_is_not_a_break():
    text = _cannot_resume_text()
    cut = text.index('  File "')
    assert parse_graph_break_text(text[:cut] + "\n" + text[text.index("Traceback (most") :]) is None


# --- shape 3: "WON'T CONVERT fn FILE line N" ---------------------------------------------------


def test_wont_convert_is_recognised_and_not_counted_twice():
    """torch 2.13 also records this break as 'Backend compiler exception' (GB0219); the WON'T CONVERT
    text is a second view of it, skipped without a parse error."""
    (text,) = [t for t in break_texts("backend_exception") if t.startswith("WON'T CONVERT")]
    assert text.startswith(f"WON'T CONVERT fn {CAPTURED_SCRIPTS}/backend_exception.py line 11\n")
    from torchcompile_doctor.events.parsers import NOT_AN_EVENT
    from torchcompile_doctor.events.parsers.graph_break_reason import parse
    from torchcompile_doctor.events.reader import Record

    record = Record("artifact:dynamo_graph_break_reason", {"frame_id": 0, "frame_compile_id": 0}, text, 1)
    assert parse(record, {}) is NOT_AN_EVENT
    log = load_artifacts(TRACES / "backend_exception.log")
    assert log.health.parse_errors == 0 and len(log.graph_breaks) == 1


def test_backend_exception_log_keeps_the_shape_one_record():
    log = load_artifacts(TRACES / "backend_exception.log")
    assert [g.gb_id for g in log.graph_breaks if g.gb_type == "Backend compiler exception"] == ["GB0219"]


def test_text_of_no_known_shape():
    assert parse_graph_break_text("") is None
    assert parse_graph_break_text("something torch will print one day\nUser code traceback:\n") is None


def test_a_line_number_of_thousands_of_digits_is_not_a_header_or_a_frame():
    """Found by tests/test_fuzz.py: int() refuses more than 4300 digits, and the ValueError cost the record."""
    (text,) = break_texts("graph_break_print")
    huge = "9" * 5000
    header_damaged = text.replace("graph_break_print.py:7\n", f"graph_break_print.py:{huge}\n", 1)
    assert header_damaged != text and parse_graph_break_text(header_damaged) is None
    frame_damaged = text.replace("line 12, in <module>", f"line {huge}, in <module>", 1)
    assert frame_damaged != text
    fields = parse_graph_break_text(frame_damaged)
    assert user_frames(fields.user_stack) == user_frames(parse_graph_break_text(text).user_stack)[1:]


def test_parse_stack_stops_at_text_after_the_frames():
    lines = [
        '  File "/a/b.py", line 3, in f',
        "    y = g(x)",
        "        ^^^^",
        '  File "/a/c.py", line 9, in g',
        "    return h()",
        "",
        "Traceback (most recent call last):",
        '  File "/torch/x.py", line 1, in inner',
    ]
    assert gbr.parse_stack(lines) == (
        StackFrame("/a/b.py", 3, "f", "y = g(x)"),
        StackFrame("/a/c.py", 9, "g", "return h()"),
    )


# --- recompile_reasons -------------------------------------------------------------------------


def test_recompile_reasons_single_bare_string():
    first = records("dtype_shape_recompile", "artifact:recompile_reasons")[0]
    assert first.meta["artifact"]["encoding"] == "json"  # torch says json, but one reason is written bare
    event = recompile_reasons.parse(first, {})
    assert event.compile_id == CompileId(0, 1)
    assert event.failures == ("0/0: tensor 'x' dtype mismatch. expected Float, actual Double",)


def test_recompile_reasons_json_list_most_recent_first():
    second = records("dtype_shape_recompile", "artifact:recompile_reasons")[1]
    assert second.payload.startswith("[")
    event = recompile_reasons.parse(second, {})
    assert event.compile_id == CompileId(0, 2)
    assert event.failures == (
        "0/1: tensor 'x' size mismatch at index 0. expected 4, actual 5",
        "0/0: tensor 'x' dtype mismatch. expected Float, actual Double",
    )


def test_recompile_reasons_bare_string_over_several_lines():
    first = records("item_recompile", "artifact:recompile_reasons")[0]
    event = recompile_reasons.parse(first, {})
    assert event.compile_id == CompileId(2, 1)
    (failure,) = event.failures
    assert failure.startswith("2/0: ___stack0 == 5 ")
    assert failure.endswith(
        "User stack trace:\n"
        f'  File "{CAPTURED_SCRIPTS}/item_metrics.py", line 5, in torch_dynamo_resume_in_masked_accuracy_at_5\n'
        "    return correct.sum().item() / (mask.sum().item() + 1e-6)"
    )


def test_recompile_reasons_json_list_with_user_stacks():
    events = [recompile_reasons.parse(r, {}) for r in records("recompile_limit", "artifact:recompile_reasons")]
    assert [len(e.failures) for e in events] == [1, 2, 3, 4, 5, 6, 7, 8]
    last = events[-1]
    assert last.compile_id == CompileId(0, 8)
    assert [f.split(":")[0] for f in last.failures] == [f"0/{n}" for n in range(7, -1, -1)]
    assert all("self.step == " in f and "\nUser stack trace:\n" in f for f in last.failures)


@pytest.mark.parametrize(
    ("kind", "payload"),
    [
        *[(kind, "[" * 100_000) for kind in ("recompile_reasons", "torch_version")],
        *[(kind, '["unterminated') for kind in ("recompile_reasons", "torch_version")],
        ("recompile_reasons", "[1, [2]]"),
        ("torch_version", '{"pytorch_version": ["2"]}'),
    ],
)
def test_json_payloads_nested_too_deep_or_broken_are_parse_errors(kind, payload):
    """Found by tests/test_fuzz.py: a payload nested deeper than json's decoder goes raised RecursionError,
    which nothing caught (load_trace catches ValueError and friends); broken JSON raised JSONDecodeError."""
    data = payload.encode()
    line = (
        b'V1121 05:39:13.200000 1 torch/_dynamo/guards.py:1] {"artifact": {"name": "' + kind.encode() + b'", '
        b'"encoding": "json"}, "frame_id": 0, "frame_compile_id": 1, "has_payload": "'
        + hashlib.md5(data).hexdigest().encode()
        + b'"}\n\t'
        + data
        + b"\n"
    )
    log = EventLog()
    load_trace(io.BytesIO(line), log)
    assert (log.recompiles, log.torch_versions) == ([], [])
    assert (log.health.parse_errors, log.health.records) == (1, 1)
    record = Record(f"artifact:{kind}", {"frame_id": 0, "frame_compile_id": 1}, payload, 1)
    assert {"recompile_reasons": recompile_reasons, "torch_version": torch_version}[kind].parse(record, {}) is None


def test_recompile_reasons_empty_payload():
    record = Record("artifact:recompile_reasons", {"frame_id": 0, "frame_compile_id": 1}, "", 1)
    assert recompile_reasons.parse(record, {}) is None


# --- compilation_metrics -----------------------------------------------------------------------


def test_metrics_of_a_failed_fullgraph_compile():
    (record,) = records("fullgraph_failure", "compilation_metrics")
    event = compilation_metrics.parse(record, {})
    assert event.compile_id == CompileId(0, 0)
    assert (event.co_name, Path(event.co_filename).name, event.co_firstlineno) == ("fn", "fullgraph_failure.py", 5)
    assert event.fail_type == "Unsupported"
    assert event.fail_reason.startswith("Failed to trace builtin operator\n")
    assert "gb0059.html" in event.fail_reason
    assert (Path(event.fail_file).name, event.fail_line) == ("fullgraph_failure.py", 6)
    assert event.guard_count is None and event.graph_op_count is None  # null in the log
    assert event.compile_time_s > 0


def test_compile_time_of_older_logs_comes_from_the_cumulative_dynamo_time():
    """A torch 2.6 pre-release logged no `entire_frame_compile_time_s`, only the cumulative dynamo time."""
    (record,) = records("fullgraph_failure", "compilation_metrics")
    body = dict(record.meta["compilation_metrics"])
    del body["entire_frame_compile_time_s"]
    body["dynamo_cumulative_compile_time_us"] = 1659332
    older = dataclasses.replace(record, meta={**record.meta, "compilation_metrics": body})
    assert compilation_metrics.parse(older, {}).compile_time_s == pytest.approx(1.659332)


def test_metrics_of_the_refused_compile_at_the_recompile_limit_has_null_fields():
    record = records("recompile_limit", "compilation_metrics")[-1]
    body = record.meta["compilation_metrics"]
    assert body["co_name"] is None and body["cache_size"] is None
    event = compilation_metrics.parse(record, {})
    assert event.compile_id == CompileId(0, 8)
    assert (event.co_name, event.co_filename, event.co_firstlineno, event.cache_size) == (None, None, None, None)
    assert event.fail_type == "Unsupported"
    assert event.fail_reason.startswith("Dynamo recompile limit exceeded\n")


def _real_metrics_record() -> Record:
    return copy.deepcopy(records("graph_break_print", "compilation_metrics")[0])


def test_metrics_with_every_field_null():
    record = _real_metrics_record()
    body = record.meta["compilation_metrics"]
    for key in body:
        body[key] = None
    event = compilation_metrics.parse(record, {})
    assert event == CompilationMetrics(
        CompileId(0, 0), None, None, None, None, None, None, None, 0.0, None, None, None, None
    )


def test_metrics_with_wrong_types_do_not_raise():
    record = _real_metrics_record()
    record.meta["compilation_metrics"].update(
        co_name=5,
        co_filename=["x.py"],
        co_firstlineno="5",
        cache_size=1.5,
        guard_count=True,
        guard_latency_us="fast",
        graph_op_count={"n": 1},
        entire_frame_compile_time_s="0.2",
        fail_type=3,
        fail_reason=["no"],
        fail_user_frame_filename=7,
        fail_user_frame_lineno="6",
    )
    event = compilation_metrics.parse(record, {})
    # the phase timers and cache counters this test leaves as torch wrote them are compared as defaults
    assert _without_compile_time_fields(event) == CompilationMetrics(
        CompileId(0, 0), None, None, None, None, None, None, None, 0.0, None, None, None, None
    )


def _without_compile_time_fields(event: CompilationMetrics) -> CompilationMetrics:
    import dataclasses

    defaults = CompilationMetrics(None, None, None, None, None, None, None, None, 0.0, None, None, None, None)
    names = ("start_time_us", "backend_compile_s", "inductor_compile_s", "code_gen_s", "async_compile_s")
    names += ("fx_cache", "aot_cache", "kernel_compiler", "autotune_s", "torch_version")
    return dataclasses.replace(event, **{name: getattr(defaults, name) for name in names})


def test_metrics_real_values_survive():
    event = compilation_metrics.parse(_real_metrics_record(), {})
    assert (event.co_name, event.co_firstlineno, event.cache_size, event.guard_count, event.graph_op_count) == (
        "fn",
        5,
        0,
        9,
        1,
    )
    assert event.fail_type is None


def test_metrics_compile_id_from_the_body_when_the_envelope_has_none():
    record = _real_metrics_record()
    meta = {k: v for k, v in record.meta.items() if k not in ("frame_id", "frame_compile_id")}
    meta["compilation_metrics"]["compile_id"] = "3/2"
    assert compilation_metrics.parse(Record(record.kind, meta, None, 1), {}).compile_id == CompileId(3, 2)
    meta["compilation_metrics"]["compile_id"] = 32
    assert compilation_metrics.parse(Record(record.kind, meta, None, 1), {}).compile_id is None
    meta["compilation_metrics"]["compile_id"] = "3/x"
    assert compilation_metrics.parse(Record(record.kind, meta, None, 1), {}).compile_id is None
    # found while writing tests/test_fuzz.py: "²".isdigit() is True and int("²") raised, losing the record
    meta["compilation_metrics"]["compile_id"] = "²/1"
    assert compilation_metrics.parse(Record(record.kind, meta, None, 1), {}).compile_id is None


@pytest.mark.parametrize("body", [None, [], "metrics", 3])
def test_metrics_body_not_an_object(body):
    record = Record("compilation_metrics", {"compilation_metrics": body, "frame_id": 0, "frame_compile_id": 0}, None, 1)
    assert compilation_metrics.parse(record, {}) is None


def test_metrics_body_not_an_object_is_a_parse_error_in_a_log():
    line = b'V1121 05:39:13.200000 1 torch/_dynamo/utils.py:2009] {"compilation_metrics": null, "frame_id": 0}\n'
    log = EventLog()
    load_trace(io.BytesIO(line), log)
    assert log.metrics == []
    assert log.health.parse_errors == 1


# --- dynamo_start and interned strings ---------------------------------------------------------


def test_dynamo_start_resolves_interned_file_names():
    log = load_artifacts(TRACES / "graph_break_print.log")
    first, second = log.dynamo_starts
    script = f"{CAPTURED_SCRIPTS}/graph_break_print.py"
    assert first.compile_id == CompileId(0, 0)
    assert first.stack == (StackFrame(script, 5, "fn", ""),)
    assert second.compile_id == CompileId(1, 0)
    assert second.stack == (
        StackFrame(script, 12, "<module>", "compiled(torch.ones(4))"),
        StackFrame(script, 7, "torch_dynamo_resume_in_fn_at_7", ""),
    )


def test_dynamo_start_real_record_uses_ids_not_paths():
    record = records("graph_break_print", "dynamo_start")[1]
    assert [frame["filename"] for frame in record.meta["dynamo_start"]["stack"]] == [1, 1]
    assert dynamo_start.parse(record, {}).stack[0].file == "<interned 1>"  # the string table was not read
    assert dynamo_start.parse(record, {1: "/x.py"}).stack[0].file == "/x.py"


def test_dynamo_start_skips_malformed_frames():
    meta = {
        "dynamo_start": {
            "stack": [
                {"line": 5, "name": "fn", "filename": 1, "loc": "y = f(x)"},
                {"line": 3, "name": "g", "filename": 99},
                {"line": "7", "name": "bad_line", "filename": 1},
                "not a frame",
                {"line": 2, "filename": "/plain/path.py"},
                {"line": 4, "name": "no_file"},
            ]
        },
        "frame_id": 4,
        "frame_compile_id": 1,
    }
    event = dynamo_start.parse(Record("dynamo_start", meta, None, 1), {1: "/a.py"})
    assert event.compile_id == CompileId(4, 1)
    assert event.stack == (
        StackFrame("/a.py", 5, "fn", "y = f(x)"),
        StackFrame("<interned 99>", 3, "g", ""),
        StackFrame("/plain/path.py", 2, "?", ""),
    )


@pytest.mark.parametrize("stack", [1, 2.5, True, "frames", {"line": 5}])
def test_dynamo_start_with_a_stack_that_is_not_a_list_keeps_its_compile_id(stack):
    """Found by tests/test_fuzz.py: a number there raised TypeError and the compile's start was lost."""
    meta = {"dynamo_start": {"stack": stack}, "frame_id": 2, "frame_compile_id": 1}
    assert dynamo_start.parse(Record("dynamo_start", meta, None, 1), {}) == DynamoStart(CompileId(2, 1), ())


@pytest.mark.parametrize(
    "meta",
    [
        {"dynamo_start": {"stack": []}, "frame_id": 0},  # no compile id
        {"dynamo_start": None, "frame_id": 0, "frame_compile_id": 0},
        {"dynamo_start": {"stack": None}, "frame_id": "0", "frame_compile_id": 0},
    ],
)
def test_dynamo_start_without_compile_id_or_body(meta):
    assert dynamo_start.parse(Record("dynamo_start", meta, None, 1), {}) is None


def test_malformed_interned_string_records_are_ignored():
    lines = (
        b'V1121 05:39:13.000000 1 torch/x.py:1] {"str": ["/only/name.py"]}\n'
        b'V1121 05:39:13.000000 1 torch/x.py:1] {"str": ["/a.py", "1"]}\n'
        b'V1121 05:39:13.000000 1 torch/x.py:1] {"str": ["/b.py", 1]}\n'
        b'V1121 05:39:13.000000 1 torch/x.py:1] {"dynamo_start": {"stack": [{"line": 1, "name": "f", "filename": 1}'
        b', {"line": 2, "name": "g", "filename": 2}]}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0}\n'
    )
    log = EventLog()
    load_trace(io.BytesIO(lines), log)
    assert log.health.parse_errors == 0 and log.health.unknown_kinds == 0
    assert [f.file for f in log.dynamo_starts[0].stack] == ["/b.py", "<interned 2>"]


# --- torch_version -----------------------------------------------------------------------------


def test_torch_version():
    (record,) = records("graph_break_print", "artifact:torch_version")
    assert torch_version.parse(record, {}).version == "2.13.0+cpu"
    payload = b'"just a string"'
    bad = Record("artifact:torch_version", {"has_payload": hashlib.md5(payload).hexdigest()}, payload.decode(), 1)
    assert torch_version.parse(bad, {}) is None


# --- dynamo_cpp_guards_str ---------------------------------------------------------------------


def test_guard_trees_of_a_recompiled_frame_share_their_repeated_guards():
    """The cache entries of a frame repeat most guard lines; each distinct line is parsed (and held) once."""
    first, second, third = [r for r in records("dtype_shape_recompile", "dynamo_cpp_guards_str")]
    trees = [guards_tree.parse(r, {}) for r in (first, second, third)]
    assert [len(t.guards) for t in trees] == [len(guards_tree.parse_tree(r.payload)) for r in (first, second, third)]
    shared = [g for g in trees[1].guards if any(g is h for h in trees[0].guards)]
    assert len(shared) >= len(trees[1].guards) - 2  # all but the guards on what changed (dtype, then shape)
    assert {g.kind for g in trees[0].guards} >= {"TENSOR_MATCH", "GLOBAL_STATE"}


def test_guard_tree_text_spanning_lines_is_one_guard_and_the_latency_trailer_none():
    """One parser for the trace's trees and the dump's `__guard_tree_*` files: a guard text that spans lines
    stays one guard; torch's `Guard latency = ...` trailer (after a blank line) belongs to no guard."""
    text = (
        "TREE_GUARD_MANAGER:\n"
        "+- RootGuardManager\n"
        "| +- LAMBDA_GUARD: L['s'] == 'a\n"
        "b'  # if s == 'a\\nb':  # m.py:3 in f\n"
        "| +- GuardManager: source=L['x']\n"
        "| | +- TENSOR_MATCH: check_tensor(L['x'])  # return x  # m.py:4 in f\n"
        "\n"
        "Guard latency = 66.80 us"
    )
    lambda_guard, tensor = guards_tree.parse_tree(text)
    assert (lambda_guard.kind, lambda_guard.expression, lambda_guard.where) == (
        "LAMBDA_GUARD",
        "L['s'] == 'a\nb'",
        "m.py:3",
    )
    assert (tensor.kind, tensor.expression, tensor.depth, tensor.where) == (
        "TENSOR_MATCH",
        "check_tensor(L['x'])",
        2,
        "m.py:4",
    )
