"""Judging a trial of a change against the plain run (one verdict for `doctor fix` and `--try-fixes`): kept only when
the program ends as before, prints the same numbers, still compiles what it compiled, and nothing users pay for got
worse beyond the measured noise."""

from __future__ import annotations

from dataclasses import replace

from torchcompile_doctor.events.model import CallCount, CompilationMetrics, CompileId
from torchcompile_doctor.fix.judge import (
    changed_output,
    compare_output,
    compiled_ops,
    crash_line,
    ended_alike,
    judge,
    steady_state_s,
)
from torchcompile_doctor.model.findings import RunFigures
from torchcompile_doctor.model.trial import Noise, Outcome, RunResult, timing_words


def _run(
    breaks=1,
    recompiles=2,
    graphs=3,
    compile_s=1.0,
    code=0,
    output="loss 0.5000\n",
    errors="",
    fallbacks=0,
    ops=None,
    steady=None,
    problems=None,
) -> RunResult:
    figures = RunFigures(breaks, recompiles, graphs, 0, 0, compile_s, compiled_ops=ops, steady_state_s=steady)
    return RunResult(figures, fallbacks, code == 0, code, output, errors, 5.0, problems=problems or {})


def test_fewer_breaks_and_nothing_worse_improves():
    assert judge(_run(), _run(breaks=0, graphs=2)).outcome == Outcome.IMPROVED


def test_a_change_that_leaves_none_of_the_problems_it_was_made_for_fixed_them():
    before = _run(problems={"TCD104 train.py f": 1, "TCD202 train.py g": 2})
    after = _run(breaks=0, problems={"TCD202 train.py g": 2})
    assert judge(before, after, aimed_at={"TCD104"}).outcome == Outcome.FIXED
    assert judge(before, after, aimed_at={"TCD202"}).outcome == Outcome.IMPROVED  # its own problems are still there


def test_a_break_removed_but_a_recompile_added_is_worse():
    verdict = judge(_run(), _run(breaks=0, recompiles=3))
    assert verdict.outcome == Outcome.WORSE and verdict.detail == "recompiles 2 → 3"


def test_a_frame_compiled_instead_of_run_eagerly_helps_though_it_adds_a_graph():
    # a print in a loop: the frame was skipped (no graph); with the print reordered it compiles as one graph
    before, after = _run(breaks=1, recompiles=0, graphs=0, fallbacks=1), _run(breaks=0, recompiles=0, graphs=1)
    assert judge(before, after).helps


def test_the_same_figures_are_no_effect():
    assert judge(_run(), _run(compile_s=0.95)).outcome == Outcome.NO_EFFECT


def test_a_crash_is_told_with_the_last_line_torch_wrote():
    error = "Traceback ...\ntorch._dynamo.exc.InternalTorchDynamoError: PendingUnbackedSymbolNotFound: u0\n"
    verdict = judge(_run(), _run(breaks=0, code=1, errors=error))
    assert verdict.outcome == Outcome.CRASHED and "PendingUnbackedSymbolNotFound" in (verdict.detail or "")


def test_different_printed_results_are_refused_and_the_line_is_named():
    verdict = judge(_run(), _run(breaks=0, output="loss 0.7000\n"))
    assert verdict.outcome == Outcome.OUTPUT_CHANGED and "loss 0.5000" in (verdict.detail or "")


def test_printed_numbers_may_differ_in_their_last_digits_only():
    assert changed_output("loss 0.500000\nstep 3\n", "loss 0.500001\nstep 3\n") is None
    assert changed_output("loss 0.5\n", "loss 0.6\n") is not None
    assert changed_output("a\nb\n", "a\n") == "printed 1 line(s) instead of 2"
    assert changed_output("ok 1\n", "done 1\n") is not None


def test_a_number_printed_as_a_tensor_is_the_same_number_and_the_verdict_says_so():
    # the optimizer's lr made a tensor: the program printed `lr tensor(0.0064)` where it printed `lr 0.0064`
    before, after = "step 1 lr 0.0064\n", "step 1 lr tensor(0.0064)\n"
    compared = compare_output(before, after)
    assert (
        compared.differs is None
        and compared.printed_otherwise == "prints `step 1 lr tensor(0.0064)` for `step 1 lr 0.0064`"
    )
    verdict = judge(_run(output=before), _run(breaks=0, output=after))
    assert verdict.helps and verdict.label == compared.printed_otherwise
    assert compare_output("x 0.5\n", "x tensor(0.5, grad_fn=<AddBackward0>)\n").differs is None
    assert compare_output("x 0.5\n", "x np.float64(0.5)\n").differs is None
    # another number inside the tensor is still another result
    assert (
        compare_output("lr 0.0064\n", "lr tensor(0.0070)\n").differs
        == "printed line 1 was `lr 0.0064`, now `lr tensor(0.0070)`"
    )


def test_a_tensor_printed_to_torch_s_four_decimals_is_the_number_it_rounds():
    # a scheduler's lr made a tensor (the realworld compiled_optimizer.py): a list of it printed at 4 decimals
    printed = compare_output("[0.004666666666666667]\n", "[tensor(0.0047)]\n")
    assert (
        printed.differs is None
        and printed.printed_otherwise == "prints `[tensor(0.0047)]` for `[0.004666666666666667]`"
    )
    assert compare_output("lr 0.0046666\n", "lr tensor(4.6666e-03)\n").differs is None
    # beyond half the last printed place it is another number; and without the tensor's print, precision counts
    assert compare_output("[0.004666666666666667]\n", "[tensor(0.0048)]\n").differs is not None
    assert compare_output("lr 0.004666666666666667\n", "lr 0.0047\n").differs is not None


def test_a_change_that_compiles_less_is_never_a_fix():
    # regional compilation of torch.nn built-ins: nothing compiled at all, and so no break and no compile time
    before, after = _run(breaks=2, graphs=8, compile_s=17.0), _run(breaks=0, recompiles=0, graphs=0, compile_s=0.0)
    verdict = judge(before, after, by_compile_time=True)
    assert verdict.outcome == Outcome.COMPILES_LESS and verdict.detail == "graphs 8 → 0: nothing compiles"
    # a function left eager: fewer ops reach a graph though graphs remain
    verdict = judge(_run(ops=120), _run(breaks=0, ops=40))
    assert verdict.outcome == Outcome.COMPILES_LESS and verdict.detail == "ops run in compiled graphs 120 → 40"
    assert judge(_run(ops=120), _run(breaks=0, ops=118)).helps  # a break removed: the same ops, one graph
    assert judge(_run(ops=120), _run(breaks=0, ops=90)).helps  # a mask left out: its ops with it


def test_a_fix_that_compiles_far_longer_is_a_trade_off_with_both_figures():
    # dynamic=True removed one recompile and raised the compile time from 26.8 s to 149.7 s
    verdict = judge(_run(compile_s=26.8), _run(recompiles=1, compile_s=149.7))
    assert verdict.outcome == Outcome.TRADE_OFF and verdict.detail == "compile 26.80 s → 149.70 s"
    assert not verdict.helps
    slower = judge(_run(steady=0.1), _run(breaks=0, steady=0.2))
    assert slower.outcome == Outcome.TRADE_OFF and "steady state 0.100 s → 0.200 s" in (slower.detail or "")
    assert judge(_run(), _run(compile_s=3.0)).outcome == Outcome.WORSE  # slower, and nothing else


def test_a_timing_within_the_plain_runs_spread_decides_nothing():
    noisy = Noise.of([_run(compile_s=10.0), _run(compile_s=14.0)])  # a loaded machine: 4 s apart
    assert noisy.compile_s.median == 12.0 and noisy.compile_s.spread == 4.0
    assert judge(_run(compile_s=10.0), _run(breaks=0, compile_s=15.5), noise=noisy).outcome == Outcome.IMPROVED
    assert judge(_run(compile_s=10.0), _run(breaks=0, compile_s=16.5), noise=noisy).outcome == Outcome.TRADE_OFF
    regional = judge(_run(compile_s=10.0), _run(compile_s=9.0), noise=noisy, by_compile_time=True)
    assert regional.outcome == Outcome.NO_EFFECT  # 3 s faster than the median, within the spread
    assert judge(_run(compile_s=10.0), _run(compile_s=6.0), noise=noisy, by_compile_time=True).helps


def test_a_forked_trial_is_judged_and_worded_against_the_forked_repeats_never_the_cold_plain_run():
    # export_vs_compile: the plain run, cold and alone, read steady state 4.6 ms; its repeats and the trials, forked
    # warm side by side, read ~0.6 s. The fix's 0.576 s is within the repeats' noise: no trade-off, and its words
    # put it beside the repeats' 0.580 s, never beside the cold 4.6 ms
    cold = _run(compile_s=17.4, steady=0.0046)
    forked = Noise.of([_run(compile_s=40.0, steady=0.55), _run(compile_s=41.0, steady=0.61)], forked=True)
    fix = _run(recompiles=0, graphs=1, compile_s=37.8, steady=0.576)
    assert judge(cold, fix, noise=forked).outcome == Outcome.IMPROVED
    slower = judge(cold, _run(recompiles=0, graphs=1, compile_s=90.0, steady=0.576), noise=forked)
    assert (
        slower.outcome == Outcome.TRADE_OFF
        and slower.detail == "compile 40.50 s → 90.00 s, steady state 0.580 s → 0.576 s"
    )
    assert timing_words(forked, fix.figures) == "compile 40.50 s → 37.80 s, steady state 0.580 s → 0.576 s"
    # no forked repeat ran to its end: nothing of the same kind to compare with, so no timing decides or is shown
    untimed = Noise.of([], forked=True)
    assert not untimed.timed and timing_words(untimed, fix.figures) is None
    assert judge(cold, _run(recompiles=0, graphs=1, compile_s=90.0), noise=untimed).outcome == Outcome.IMPROVED


def test_a_trial_cut_short_says_so_with_its_partial_figures():
    after = _run(breaks=0, recompiles=0)
    after = RunResult(after.figures, 0, False, None, "", "", 67.0, timed_out=True)
    verdict = judge(_run(breaks=2, recompiles=3), after)
    assert verdict.outcome == Outcome.NOT_MEASURED
    assert verdict.detail == "cut short after 67 s by the budget; partial figures: breaks 2 → 0, recompiles 3 → 0"


def test_what_a_run_compiled_and_what_its_compiled_calls_cost():
    def metrics(name: str, line: int, ops: int | None) -> CompilationMetrics:
        fields = dict.fromkeys(("cache_size", "guard_count", "guard_latency_us", "fail_type", "fail_reason"))
        fields |= dict.fromkeys(("fail_file", "fail_line"))
        return CompilationMetrics(CompileId(0, 0), name, "m.py", line, graph_op_count=ops, compile_time_s=1.0, **fields)

    # a recompile of `f` compiles the same code again: its largest graph counts once
    records = [metrics("f", 1, 10), metrics("f", 1, 12), metrics("resume_in_f", 5, 5), metrics("g", 9, None)]
    assert compiled_ops(records) == 17
    assert compiled_ops([metrics("g", 9, None)]) is None
    # regional compilation: one block's graph, run by each of 8 blocks, 3 steps; the whole model's once a step
    block, model = metrics("forward", 20, 12), metrics("forward", 40, 100)
    assert compiled_ops([block], [CallCount("m.py", 20, "forward", 24, 1)]) == 288
    assert compiled_ops([model], [CallCount("m.py", 40, "forward", 3, 1)]) == 300
    counts = [CallCount("m.py", 1, "f", 10, 1, 9, 0.002), CallCount("m.py", 9, "g", 1, 1, 0, None)]
    assert steady_state_s(counts) == 0.02  # f's median call, 10 calls; g never ran without compiling
    assert steady_state_s(counts[1:]) is None


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


def _limit_hit(run: RunResult, hits: int) -> RunResult:
    return replace(run, figures=replace(run.figures, recompile_limit_hits=hits))


def test_a_limit_raised_for_a_sweep_compiles_the_calls_that_ran_eagerly_and_fixes_the_limit_hit():
    # measured on a sweep of 10 activations: recompiles 8 + the limit hit, 8 graphs, 1 call eager; the limit
    # raised to 10: recompiles 9, no limit hit, 10 graphs (the two eager calls compiled)
    before = _limit_hit(_run(breaks=0, recompiles=8, graphs=8, fallbacks=1, problems={"TCD402 p.py probe": 1}), 1)
    after = _run(breaks=0, recompiles=9, graphs=10, compile_s=1.2, problems={"TCD205 p.py probe": 9})
    verdict = judge(before, after, aimed_at={"TCD402"}, inherent_recompiles=True)
    assert verdict.outcome == Outcome.FIXED
    assert verdict.detail == (
        "recompile-limit hits 1 → 0, recompiles 8 → 9: the calls that ran eagerly past the limit now compile "
        "(graphs 8 → 10)"
    )
    # the same figures for a change not made for a sweep (the limit raised over recompiles a tensor or a dynamic
    # shape removes: --try-fixes' experiment) hide the cause: worse
    assert judge(before, after, aimed_at={"TCD402"}).outcome == Outcome.WORSE


def test_more_recompiles_without_a_limit_hit_removed_stay_worse():
    before = _limit_hit(_run(breaks=0, recompiles=8, graphs=8, fallbacks=1), 1)
    still_hit = _limit_hit(_run(breaks=0, recompiles=9, graphs=9, fallbacks=1), 1)
    assert judge(before, still_hit, inherent_recompiles=True).outcome == Outcome.WORSE
    more_eager = _run(breaks=0, recompiles=9, graphs=10, fallbacks=2)  # the limit gone, but more frames eager
    assert judge(before, more_eager, inherent_recompiles=True).outcome == Outcome.WORSE


def test_the_compile_time_of_calls_that_now_compile_is_judged_per_graph():
    before = _limit_hit(_run(breaks=0, recompiles=8, graphs=8, fallbacks=1, compile_s=4.0), 1)
    # twice the graphs, twice the compile time: each graph costs what it cost
    doubled = judge(before, _run(breaks=0, recompiles=15, graphs=16, compile_s=8.0), inherent_recompiles=True)
    assert doubled.helps and "the calls that ran eagerly past the limit now compile" in (doubled.detail or "")
    # each graph compiling three times longer is a trade-off, with the measured figures
    slower = judge(before, _run(breaks=0, recompiles=15, graphs=16, compile_s=24.0), inherent_recompiles=True)
    assert slower.outcome == Outcome.TRADE_OFF and slower.detail == "compile 4.00 s → 24.00 s"


def test_the_caches_reset_per_item_compile_the_calls_that_ran_eagerly_and_are_judged_per_graph_too():
    # a sweep's caches reset per item: no recompile, no limit hit, 10 graphs where 8 compiled and 2 calls ran eagerly
    before = _limit_hit(_run(breaks=0, recompiles=8, graphs=8, fallbacks=1, compile_s=1.4), 1)
    reset = judge(before, _run(breaks=0, recompiles=0, graphs=10, compile_s=2.2))  # 1.75 s would be 1.4 per 8
    assert reset.outcome == Outcome.IMPROVED and reset.detail is None
    slower = judge(before, _run(breaks=0, recompiles=0, graphs=10, compile_s=4.0))
    assert slower.outcome == Outcome.TRADE_OFF


def test_two_runs_of_a_change_are_one_change_s_runs_only_when_they_ended_alike():
    """A change measured again is judged on both runs only when the second ended as the first (doctor fix's trials
    and --try-fixes' experiments alike): only its timings may differ."""
    first = _run(compile_s=9.0, problems={"TCD104": 1})
    assert ended_alike(first, replace(_run(compile_s=1.0, problems={"TCD104": 1}), wall_s=2.0))
    assert not ended_alike(first, replace(first, timed_out=True))  # cut short: partial figures
    assert not ended_alike(replace(first, timed_out=True), first)
    assert not ended_alike(first, _run(compile_s=9.0, problems={"TCD104": 2}))
    assert not ended_alike(first, _run(compile_s=9.0, graphs=4, problems={"TCD104": 1}))
    assert not ended_alike(first, _run(compile_s=9.0, code=1, problems={"TCD104": 1}))
