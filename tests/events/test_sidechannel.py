"""The side channel round trip: what the capture child writes is what the reader gives back, for every event."""

from __future__ import annotations

import io

from torchcompile_doctor.events.model import (
    BackendUse,
    BootstrapInfo,
    CallCount,
    CallSite,
    CompileId,
    CudagraphSkip,
    ExplainResult,
    GuardOverhead,
    LogHealth,
    PerfHint,
    StackFrame,
    TargetExit,
    TorchWarning,
    Warning_,
)
from torchcompile_doctor.events.sidechannel import _PARSERS, EventName, SideChannel, read_side_channel

# (name, fields as the child writes them, the event read back)
WRITTEN = [
    (
        EventName.BOOTSTRAP,
        {
            "torch_version": "2.13.0",
            "python_version": "3.11.7",
            "target": "train.py",
            "library_roots": ["/usr/lib/python3.11"],
            "backend_override": "eager",
            "pid": 42,
        },
        BootstrapInfo("2.13.0", "3.11.7", "train.py", ("/usr/lib/python3.11",), "eager", 42),
    ),
    (EventName.BACKEND, {"requested": "inductor", "used": "eager"}, BackendUse("inductor", "eager")),
    (
        EventName.BACKEND,
        {
            "requested": "inductor",
            "used": "eager",
            "compiled": "LlamaForCausalLM",
            "compiled_kind": "module",
            "file": "/t.py",
            "line": 30,
            "dynamo_disabled_by": "TORCHDYNAMO_DISABLE=1",
            "dynamic": True,
            "function_file": "/m.py",
            "function_line": 3,
        },
        BackendUse(
            "inductor", "eager", "LlamaForCausalLM", "module", "/t.py", 30, "TORCHDYNAMO_DISABLE=1", True, "/m.py", 3
        ),
    ),
    (
        EventName.CALL_SITE,
        {"function_file": "/m.py", "function_line": 3, "function": "f", "file": "/t.py", "line": 9, "caller": "main"},
        CallSite("/m.py", 3, "f", "/t.py", 9, "main"),
    ),
    (
        EventName.CALL_COUNT,
        {"function_file": "/m.py", "function_line": 3, "function": "f", "calls": 12, "last_compile_call": 9},
        CallCount("/m.py", 3, "f", 12, 9),
    ),
    (
        EventName.GUARD_OVERHEAD,
        {
            "function_file": "/m.py",
            "function_line": 3,
            "function": "f",
            "calls": 500,
            "compiled_us": 10.5,
            "skip_guards_us": 6.0,
            "eager_us": None,
            "error": None,
        },
        GuardOverhead("/m.py", 3, "f", 500, 10.5, 6.0, None, None),
    ),
    (EventName.WARNING, {"message": "depyf dump unavailable"}, Warning_("depyf dump unavailable")),
    (
        EventName.PERF_HINT,
        {"message": "reduction over a large dim", "logger": "torch._inductor.graph", "compile_id": "1/2"},
        PerfHint("reduction over a large dim", "torch._inductor.graph", CompileId(1, 2)),
    ),
    (
        EventName.EXPLAIN,
        {"graph_count": 2, "graph_break_count": 1, "break_reasons": ["m.py:4: print"], "ops_per_graph": [3, 1]},
        ExplainResult(2, 1, ("m.py:4: print",), (3, 1), None),
    ),
    (
        EventName.TARGET_EXIT,
        {
            "status": "exception",
            "exit_code": 1,
            "exception_type": "ValueError",
            "message": "bad",
            "stack": [{"file": "/t.py", "line": 9, "function": "main", "code": "f(x)"}],
        },
        TargetExit("exception", 1, "ValueError", "bad", (StackFrame("/t.py", 9, "main", "f(x)"),)),
    ),
    # torch's own messages, read by events/messages/ (tests/test_gpu_capture.py drives the real loggers)
    (
        EventName.TORCH_WARNING,
        {
            "category": "UserWarning",
            "message": "TensorFloat32 tensor cores for float32 matrix multiplication available but not enabled.",
            "file": "/venv/torch/_inductor/compile_fx.py",
            "line": 322,
        },
        TorchWarning(
            "tf32_disabled",
            "UserWarning",
            "TensorFloat32 tensor cores for float32 matrix multiplication available but not enabled.",
            "/venv/torch/_inductor/compile_fx.py",
            322,
        ),
    ),
    (
        EventName.TORCH_LOG,
        {
            "module": "torch._inductor.cudagraph_utils",
            "artifact": "cudagraphs",
            "level": "WARNING",
            "compile_id": None,
            "message": "skipping cudagraphs due to mutated inputs (1 instances). Found from : \n"
            ' File "/t.py", line 6, in f\n    acc.add_(x)',
        },
        CudagraphSkip(
            None, "mutated_inputs", "mutated inputs (1 instances)", (StackFrame("/t.py", 6, "f", "acc.add_(x)"),)
        ),
    ),
]


def test_every_event_name_has_a_reader_and_a_case_here():
    assert set(_PARSERS) == set(EventName) == {name for name, _, _ in WRITTEN}


def test_what_the_writer_writes_the_reader_reads_back(tmp_path):
    import dataclasses
    import time

    path = tmp_path / "doctor_events.jsonl"
    channel = SideChannel(str(path))
    started = time.time()
    for name, fields, _ in WRITTEN:
        channel.write(name, **fields)
    channel.close()
    ended = time.time()
    assert [line.split('"event": ')[1].split('"')[1] for line in path.read_text().splitlines()] == [
        str(name) for name, _, _ in WRITTEN
    ]
    health = LogHealth()
    with path.open("rb") as stream:
        events = list(read_side_channel(stream, health))
    # every line is stamped with when it was written; the run's start and end keep that time
    stamped = [e for e in events if isinstance(e, (BootstrapInfo, TargetExit))]
    assert stamped and all(started <= e.wall_time <= ended for e in stamped)
    unstamped = [dataclasses.replace(e, wall_time=None) if e in stamped else e for e in events]
    assert unstamped == [event for _, _, event in WRITTEN]
    assert health == LogHealth(lines=len(WRITTEN), records=len(WRITTEN))


def test_an_event_name_that_is_not_a_string_is_unknown_not_an_error():
    health = LogHealth()
    lines = b'{"event": ["warning"], "message": "x"}\n{"event": {"a": 1}}\n{"event": "warning", "message": "ok"}\n'
    assert list(read_side_channel(io.BytesIO(lines), health)) == [Warning_("ok")]
    assert (health.unknown_kinds, health.records) == (2, 1)
