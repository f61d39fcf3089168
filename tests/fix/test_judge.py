"""Judging a trial of a fix against the plain run: kept only when the program ends as before, prints the same
results (numbers to their last digits aside) and nothing got worse."""

from __future__ import annotations

from torchcompile_doctor.fix.judge import (
    CRASHED,
    HELPS,
    NO_EFFECT,
    OUTPUT_CHANGED,
    WORSE,
    RunResult,
    changed_output,
    crash_line,
    judge,
)
from torchcompile_doctor.model.findings import RunFigures


def _run(
    breaks=1, recompiles=2, graphs=3, compile_s=1.0, code=0, output="loss 0.5000\n", errors="", fallbacks=0
) -> RunResult:
    figures = RunFigures(breaks, recompiles, graphs, 0, 0, compile_s)
    return RunResult(figures, fallbacks, code == 0, code, output, errors, 5.0)


def test_fewer_breaks_and_nothing_worse_helps():
    assert judge(_run(), _run(breaks=0, graphs=2), by_compile_time=False).status == HELPS


def test_a_break_removed_but_a_recompile_added_is_worse():
    verdict = judge(_run(), _run(breaks=0, recompiles=3), by_compile_time=False)
    assert verdict.status == WORSE and verdict.detail == "recompiles 2 → 3"


def test_a_frame_compiled_instead_of_run_eagerly_helps_though_it_adds_a_graph():
    # a print in a loop: the frame was skipped (no graph); with the print reordered it compiles as one graph
    before, after = _run(breaks=1, recompiles=0, graphs=0, fallbacks=1), _run(breaks=0, recompiles=0, graphs=1)
    assert judge(before, after, by_compile_time=False).status == HELPS


def test_the_same_figures_are_no_effect():
    assert judge(_run(), _run(compile_s=0.5), by_compile_time=False).status == NO_EFFECT


def test_a_crash_is_told_with_the_last_line_torch_wrote():
    error = "Traceback ...\ntorch._dynamo.exc.InternalTorchDynamoError: PendingUnbackedSymbolNotFound: u0\n"
    verdict = judge(_run(), _run(breaks=0, code=1, errors=error), by_compile_time=False)
    assert verdict.status == CRASHED and "PendingUnbackedSymbolNotFound" in (verdict.detail or "")


def test_different_printed_results_are_refused():
    verdict = judge(_run(), _run(breaks=0, output="loss 0.7000\n"), by_compile_time=False)
    assert verdict.status == OUTPUT_CHANGED and "loss 0.5000" in (verdict.detail or "")


def test_printed_numbers_may_differ_in_their_last_digits_only():
    assert changed_output("loss 0.500000\nstep 3\n", "loss 0.500001\nstep 3\n") is None
    assert changed_output("loss 0.5\n", "loss 0.6\n") is not None
    assert changed_output("a\nb\n", "a\n") == "printed 1 line(s) instead of 2"
    assert changed_output("ok 1\n", "done 1\n") is not None


def test_regional_compilation_is_judged_by_compile_time_and_not_by_its_graph_count():
    before, after = _run(breaks=0, recompiles=0, graphs=1, compile_s=10.0), _run(0, 0, graphs=16, compile_s=2.0)
    assert judge(before, after, by_compile_time=True).status == HELPS
    assert judge(before, _run(0, 0, graphs=16, compile_s=12.0), by_compile_time=True).status == WORSE


def test_a_crash_is_named_by_its_exception_not_by_the_advice_torch_prints_after_it():
    # the end of a trial's stderr where capture_scalar_outputs stopped a vision model (transformers 5.5.4)
    errors = (
        '  File "/site-packages/torch/_dynamo/symbolic_convert.py", line 1502, in run\n'
        "torch._dynamo.exc.InternalTorchDynamoError: PendingUnbackedSymbolNotFound: Pending unbacked symbols {u0}\n"
        "\n"
        "Set TORCHDYNAMO_VERBOSE=1 for the internal stack trace (please do this especially if you're reporting a bug"
        ' to PyTorch). For even more developer context, set TORCH_LOGS="+dynamo"\n'
    )
    assert crash_line(errors, 1).startswith("torch._dynamo.exc.InternalTorchDynamoError: PendingUnbackedSymbol")
    assert crash_line("killed\n", -9) == "killed"
    assert crash_line("", 3) == "exit status 3"
