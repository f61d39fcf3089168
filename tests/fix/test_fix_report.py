"""What `doctor fix` prints, from a fix report made in-process (the live runs are test_doctor_fix.py's): the patch
with its measured before → after of breaks, recompiles, compile time and steady-state time, each helpful change
left out with its reason, a kept change labelled for printing a number another way, the plain run's noise; the
JSON carries the same."""

from __future__ import annotations

import json

from torchcompile_doctor.model.findings import RunFigures
from torchcompile_doctor.model.fix import FIX_SCHEMA_VERSION, FixReport, PatchRecord, ProblemChange, TrialRecord
from torchcompile_doctor.model.trial import LeftOut, Noise, RunResult, timing_words
from torchcompile_doctor.renderers.fix_report import render_fix

BEFORE = RunFigures(2, 1, 3, 0, 0, 1.5, compiled_ops=40, steady_state_s=0.0042)
AFTER = RunFigures(0, 0, 1, 0, 0, 1.2, compiled_ops=40, steady_state_s=0.0040)
DIFF = "--- a/train.py\n+++ b/train.py\n@@ -1 +1 @@\n-lr = 0.01\n+lr = torch.tensor(0.01)\n"


def _run(compile_s: float, steady_s: float) -> RunResult:
    return RunResult(RunFigures(2, 1, 3, 0, 0, compile_s, steady_state_s=steady_s), 0, True, 0, "", "", 1.0)


def _report(noise: Noise | None = None) -> FixReport:
    noise = noise or Noise.of([_run(1.4, 0.0041), _run(1.6, 0.0043)])
    slower_after = RunFigures(2, 0, 3, 0, 0, 9.0)

    kept = TrialRecord(
        "lr as a tensor",
        ("TCD202",),
        ("`step` recompiles",),
        "fixed",
        None,
        None,
        AFTER,
        DIFF,
        label="prints `lr tensor(0.0064)` for `lr 0.0064`",
        by_finding=(ProblemChange("TCD202 train.py step", 1, 0),),
    )
    slower = TrialRecord(
        "torch.compile(..., dynamic=True)",
        ("TCD202",),
        (),
        "trade-off",
        timing_words(noise, slower_after),  # the verdict's words (model/trial.py), from the same runs
        None,
        slower_after,
    )
    return FixReport(
        schema_version=FIX_SCHEMA_VERSION,
        target="train.py",
        project="project",
        before=BEFORE,
        before_succeeded=True,
        trials=(kept, slower),
        patch=PatchRecord(("lr as a tensor",), AFTER, DIFF, ("train.py",)),
        left_out=(LeftOut("mark_dynamic at the call", "removes only what lr as a tensor removes already"),),
        noise=noise,
    )


def test_the_patch_states_its_four_figures_before_and_after_and_what_stayed_out():
    text = render_fix(_report(), "terminal")
    assert (
        "The patch (train.py), measured on this program: graph breaks 2 → 0, recompiles 1 → 0, "
        "compile 1.50 s → 1.20 s, steady state 4.2 ms → 4.0 ms"
    ) in text
    assert "Left out: mark_dynamic at the call: removes only what lr as a tensor removes already" in text
    assert (
        "note: the plain run, 2 times: compile 1.50 s ± 0.10 s, steady state 4.2 ms ± 100 µs; a timing counts only "
        "beyond its spread"
    ) in text
    assert "kept: prints `lr tensor(0.0064)` for `lr 0.0064`" in text
    # and under the change the patch holds, where a user reads what it does to the printout
    assert (
        "  - lr as a tensor [TCD202]: " in text
        and "\n    note: the program prints `lr tensor(0.0064)` for `lr 0.0064`\n" in text
    )
    assert "  trade-off      torch.compile(..., dynamic=True) [TCD202]" in text
    assert "compile 1.50 s → 9.00 s" in text


def test_the_json_carries_the_verdicts_the_per_finding_figures_the_noise_and_the_reasons():
    document = json.loads(render_fix(_report(), "json"))
    assert document["schema_version"] == 2
    kept, slower = document["trials"]
    assert kept["status"] == "fixed" and kept["label"] == "prints `lr tensor(0.0064)` for `lr 0.0064`"
    assert kept["by_finding"] == [{"finding": "TCD202 train.py step", "before": 1, "after": 0}]
    assert kept["after"]["steady_state_s"] == 0.004 and kept["after"]["compiled_ops"] == 40
    assert slower["status"] == "trade-off" and "label" not in slower
    assert document["left_out"] == [
        {"change": "mark_dynamic at the call", "reason": "removes only what lr as a tensor removes already"}
    ]
    assert document["noise"]["compile_s"] == {"median": 1.5, "spread": 0.2, "runs": 2}
    assert document["noise"]["forked"] is False


def test_the_diff_format_is_the_patch_alone_as_the_json_carries_it():
    """`--format diff` is what `git apply` takes: the patch's diff and nothing else (test_doctor_fix.py applies a
    live run's with git)."""
    assert render_fix(_report(), "diff") == DIFF == json.loads(render_fix(_report(), "json"))["patch"]["diff"]


def test_forked_trials_are_put_beside_the_plain_run_s_forked_repeats_never_beside_the_cold_plain_run():
    # the plain run (BEFORE: compile 1.50 s, steady state 4.2 ms) ran alone (cold here); its two repeats were
    # forked warm beside the trials, as the trials were: every timing printed beside a trial's is the repeats' median
    forked = Noise.of([_run(0.9, 0.55), _run(1.1, 0.60)], forked=True)
    text = render_fix(_report(forked), "terminal")
    assert "graph breaks 2 → 0, recompiles 1 → 0, compile 1.00 s → 1.20 s, steady state 0.575 s → 4.0 ms" in text
    assert "measured: recompiles 1 → 0, compile 1.00 s → 9.00 s\n                 compile 1.00 s → 9.00 s\n" in text
    assert "1.50 s →" not in text and "4.2 ms →" not in text  # the cold plain run's timings, beside none
    assert (
        "note: the plain run again, 2 times forked as the trials are: compile 1.00 s ± 0.10 s, steady state 0.575 s "
        "± 25.0 ms; a timing counts only beyond its spread"
    ) in text
    assert json.loads(render_fix(_report(forked), "json"))["noise"]["forked"] is True


def test_no_timing_is_printed_beside_a_forked_trial_s_when_no_forked_repeat_ran_to_its_end():
    text = render_fix(_report(Noise.of([], forked=True)), "terminal")
    assert "The patch (train.py), measured on this program: graph breaks 2 → 0, recompiles 1 → 0\n" in text
    assert (
        "  trade-off      torch.compile(..., dynamic=True) [TCD202]\n                 measured: recompiles 1 → 0\n"
        in text
    )
    assert "compile 1.50 s" not in text and "steady state 4.2 ms" not in text
    assert "note: no plain run forked as the trials are ran to its end: their timings were not compared" in text
