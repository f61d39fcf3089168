"""The capture's hooks for what torch says to its loggers and to `warnings` (capture/torch_messages.py), driven
by torch's own loggers, torch's own message functions and real `warnings.warn` calls with the messages the H100
recordings hold: every record reaches the side channel, what torch's handlers (and the user) see does not change,
and the findings come out of it, the CUDA-graph skip reasons no recorded case shows included. No GPU: the messages
are torch's, the conditions that make torch say them are not needed to say them."""

from __future__ import annotations

import logging
import warnings
from pathlib import Path

import pytest

from torchcompile_doctor import pipeline
from torchcompile_doctor.capture.hooks import perf_hint_capture
from torchcompile_doctor.capture.torch_messages import torch_log_capture, warning_capture
from torchcompile_doctor.capture_layout import SIDE_CHANNEL as FILE_NAME
from torchcompile_doctor.events.model import CudagraphRunMode, LogHealth, WarningKind
from torchcompile_doctor.events.sidechannel import SideChannel, read_side_channel

# torch and the inductor modules whose loggers and message functions these tests drive: imported when the tests
# run (the fixture below), not when pytest collects them, which would cost every xdist worker their import
torch = cudagraph_trees = cudagraph_utils = graph = scheduler = None


@pytest.fixture(autouse=True, scope="module")
def _torch_modules():
    global torch, cudagraph_trees, cudagraph_utils, graph, scheduler
    import torch as imported_torch
    from torch._inductor import cudagraph_trees as trees
    from torch._inductor import cudagraph_utils as utils
    from torch._inductor import graph as inductor_graph
    from torch._inductor import scheduler as inductor_scheduler

    torch, cudagraph_trees, cudagraph_utils = imported_torch, trees, utils
    graph, scheduler = inductor_graph, inductor_scheduler


TF32 = (
    "TensorFloat32 tensor cores for float32 matrix multiplication available but not enabled. Consider setting "
    "`torch.set_float32_matmul_precision('high')` for better performance."
)
PENDING_2_11 = (
    "Unable to hit fast path of CUDAGraphs because of pending, uninvoked backwards. Consider running with "
    "torch.no_grad() or using torch.compiler.cudagraph_mark_step_begin() before each model invocation"
)
USER_STACK = '  File "/home/user/app.py", line 6, in accumulate\n    acc.add_(x @ w)\n'


def torch_file(module) -> str:
    return module.__file__


def emit_recorded_records() -> None:
    """What the recordings' cudagraphs logger said, said again through torch's own loggers and functions."""
    mutation = cudagraph_utils.format_default_skip_message("mutated inputs (1 instances)")
    cudagraph_utils.log_cudagraph_skip_and_bump_counter(f"{mutation}. Found from : \n {USER_STACK}")
    scheduler.cudagraphs_log.debug("Created %d graph partitions: %d cudagraphable, %d non-cudagraphable", 1, 1, 0)
    cudagraph_trees.log.info("[%s] Recording cudagraph tree for symint key %s", "0/0", (8, 2))
    for _ in range(3):
        cudagraph_trees.log.debug("[%s] Running eager function=%s", "0/0", "partition_0")


class _Probe(logging.Handler):
    """What reaches torch's handlers: a handler beside them on every logger a cudagraphs record can reach."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.seen: list[tuple[str, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.seen.append((record.levelname, record.getMessage()))


def _ancestors() -> set[logging.Logger]:
    """The loggers above the artifact loggers (torch registers some of them as logs with handlers of their own)."""
    found: set[logging.Logger] = set()
    for module in (cudagraph_trees, cudagraph_utils, scheduler, graph):
        logger = logging.getLogger(module.__name__)
        while logger is not None:
            found.add(logger)
            logger = logger.parent
    return found


def seen_by_torchs_handlers(run) -> list[tuple[str, str]]:
    probe = _Probe()
    ancestors = _ancestors()
    for logger in ancestors:
        logger.addHandler(probe)
    try:
        run()
    finally:
        for logger in ancestors:
            logger.removeHandler(probe)
    return probe.seen


def captured(tmp_path: Path, run) -> list[tuple[str, str]]:
    channel = SideChannel(str(tmp_path / FILE_NAME))
    try:
        with torch_log_capture(channel), warning_capture(channel), perf_hint_capture(channel):
            return seen_by_torchs_handlers(run)
    finally:
        channel.close()


def side_channel_events(tmp_path: Path) -> list[object]:
    with (tmp_path / FILE_NAME).open("rb") as stream:
        return list(read_side_channel(stream, LogHealth()))


@pytest.fixture(params=["default", "+cudagraphs"])
def torch_logs(request):
    """torch's logging as the program left it: default, or TORCH_LOGS="+cudagraphs" (set_logs does what the
    variable does), restored afterwards."""
    if request.param == "+cudagraphs":
        torch._logging.set_logs(cudagraphs=True)
    try:
        yield request.param
    finally:
        torch._logging.set_logs()


def test_torchs_handlers_see_what_they_saw_without_the_capture(tmp_path, torch_logs):
    without = seen_by_torchs_handlers(emit_recorded_records)
    with_capture = captured(tmp_path, emit_recorded_records)
    assert with_capture == without
    levels = {level for level, _ in without}
    # by default only the skip (a WARNING) is printed; with the artifact on, every record
    assert levels == ({"WARNING"} if torch_logs == "default" else {"WARNING", "INFO", "DEBUG"})


def test_every_record_reaches_the_side_channel_at_every_level(tmp_path, torch_logs):
    captured(tmp_path, emit_recorded_records)
    events = side_channel_events(tmp_path)
    (skip,) = [e for e in events if type(e).__name__ == "CudagraphSkip"]
    assert (skip.reason, skip.user_stack[-1].line) == ("mutated_inputs", 6)
    runs = [e for e in events if type(e).__name__ == "CudagraphRun"]
    assert [(r.mode, r.count) for r in runs] == [(CudagraphRunMode.EAGER, 3)]
    assert any(type(e).__name__ == "CudagraphRecording" for e in events)
    assert any(type(e).__name__ == "CudagraphPartitions" for e in events)


def test_a_warning_is_shown_as_python_shows_it_and_recorded(tmp_path):
    """The function that shows warnings (Python's, or the program's own replacement, as here: pytest collects the
    warnings of a test) gets every warning with the same arguments, with or without the capture."""
    shown: list[tuple] = []

    def warn():
        warnings.warn_explicit(TF32, UserWarning, torch_file(torch._inductor.compile_fx), 322)
        warnings.warn_explicit(PENDING_2_11, UserWarning, torch_file(cudagraph_trees), 2582)
        warnings.warn_explicit("a warning of the user's", UserWarning, "/home/user/app.py", 3)

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = lambda *args: shown.append(tuple(map(str, args)))
        warn()
        without = list(shown)
        shown.clear()
        captured(tmp_path, warn)
    assert shown == without and len(without) == 3
    kinds = [e.kind for e in side_channel_events(tmp_path) if type(e).__name__ == "TorchWarning"]
    assert kinds == [WarningKind.TF32_DISABLED, WarningKind.CUDAGRAPH_PENDING_BACKWARD]  # not the user's


def test_a_warning_python_does_not_show_is_not_recorded(tmp_path):
    def under_filters():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            warnings.warn_explicit(TF32, UserWarning, torch_file(torch._inductor.compile_fx), 322)
        with warnings.catch_warnings(record=True):  # the program collects it: nothing is shown
            warnings.simplefilter("always")
            warnings.warn_explicit(TF32, UserWarning, torch_file(torch._inductor.compile_fx), 322)

    captured(tmp_path, under_filters)
    assert not [e for e in side_channel_events(tmp_path) if type(e).__name__ == "TorchWarning"]


def test_the_hooks_leave_loggers_and_showwarning_as_they_were(tmp_path):
    loggers = [logging.getLogger(f"{m.__name__}.__cudagraphs") for m in (cudagraph_trees, cudagraph_utils, scheduler)]
    before = [(lg.level, lg.propagate, list(lg.handlers)) for lg in loggers], warnings.showwarning
    captured(tmp_path, emit_recorded_records)
    assert ([(lg.level, lg.propagate, list(lg.handlers)) for lg in loggers], warnings.showwarning) == before


def _stack(line: int, code: str) -> str:
    return f'  File "/home/user/app.py", line {line}, in step\n    {code}\n'


def _cpu_device_skip() -> str:
    """torch's own message for a CPU node, from a real FX node whose user carries the user's stack."""
    traced = torch.fx.symbolic_trace(lambda x: x.cpu() + 1)
    node = next(n for n in traced.graph.nodes if n.op == "call_method")
    next(iter(node.users)).meta["stack_trace"] = _stack(7, "y = x.cpu() + 1")
    message = cudagraph_utils.check_multiple_devices_or_any_cpu_nodes({torch.device("cpu"): node})
    assert message is not None
    return message


def emit_unrecorded_skips() -> None:
    """The skip reasons the H100 cases did not show, in torch's words: its functions where it has them
    (cudagraph_utils), its f-strings of compile_fx.py and output_code.py where it has not."""
    skip = cudagraph_utils.log_cudagraph_skip_and_bump_counter
    skip(_cpu_device_skip())
    skip(
        cudagraph_utils.format_default_skip_message(
            "graph with symbolic shapes inputs and config.triton.cudagraph_skip_dynamic_graphs=True. Found from "
            + _stack(8, "return x.sum(1)")
        )
    )
    skip(
        cudagraph_utils.format_default_skip_message(
            "disabling cudagraphs due to incompatible op aten._local_scalar_dense.default Found from "
            + _stack(9, "n = int(x.sum())")
        )
    )
    skip("skipping cudagraphs due to bisector")
    graph.perf_hint_log.info("Using FallbackKernel: %s", "torch.ops.aten.cummax.default")


def test_each_skip_reason_gets_its_rule_at_the_users_line(tmp_path):
    captured(tmp_path, emit_unrecorded_skips)
    (found,) = pipeline.reread(tmp_path).reports
    by_code = {f.code: f for f in found.findings}
    assert {"TCD411", "TCD412", "TCD413", "TCD414", "TCD420"} <= set(by_code)
    assert [(by_code[c].location.file, by_code[c].location.line) for c in ("TCD411", "TCD412", "TCD413")] == [
        ("/home/user/app.py", 7),
        ("/home/user/app.py", 8),
        ("/home/user/app.py", 9),
    ]
    assert 'device="cuda"' in by_code["TCD411"].fix.summary
    assert "torch.where" in by_code["TCD413"].fix.summary
    assert "bisector" in by_code["TCD414"].title
    assert "aten.cummax" in by_code["TCD420"].title


def test_another_warning_of_torchs_compile_stack_is_a_note(tmp_path):
    def warn():
        message = "not enough SMs to use max_autotune_gemm mode"
        warnings.warn_explicit(message, UserWarning, torch_file(torch._inductor.compile_fx), 700)

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = lambda *args: None  # the program's own replacement: the capture wraps it
        captured(tmp_path, warn)
    (found,) = pipeline.reread(tmp_path).reports
    assert any(
        note.startswith("torch warned while compiling (UserWarning at ") and "not enough SMs" in note
        for note in found.notes
    )
