"""`--try-fixes`: each suggested no-code-change fix is re-run and its measured effect reported.

The measured effects are read from `--try-fixes` runs recorded with their experiments (tests/data/try_fixes,
each `python tests/support/recording.py record PROGRAM --into tests/data/try_fixes/NAME.capture --options
"--try-fixes --jobs 2"`), re-read as `doctor report DIR` re-reads a kept capture; one run is live, to prove the
experiments run and come back."""

from __future__ import annotations

import json
import shutil
from contextlib import nullcontext
from dataclasses import replace

import pytest
from support.captures import reread
from support.doctor import doctor_in_process
from support.paths import DATA, SAMPLES

from torchcompile_doctor.experiments.runs import try_fixes
from torchcompile_doctor.fix.trials import AGAIN
from torchcompile_doctor.renderers import render

TRY_FIXES = DATA / "try_fixes"


def _verified(report: dict, code: str) -> dict:
    [finding] = [f for f in report["findings"] if f["code"] == code]
    verified = finding["fix"]["verified"]
    assert verified is not None, finding
    return verified


def _recorded(name: str) -> dict:
    return json.loads(render(reread(TRY_FIXES / f"{name}.capture"), "json"))


def test_capture_scalar_outputs_removes_the_item_break():
    verified = _verified(_recorded("item_metric"), "TCD104")
    assert verified["change"] == "torch._dynamo.config.capture_scalar_outputs = True"
    assert verified["effect"] == "fixed" and verified["ok"] is True
    assert verified["before"]["graph_breaks"] == 1 and verified["after"]["graph_breaks"] == 0
    assert verified["after"]["graphs"] == 1


def test_ignore_logging_functions_removes_a_logger_break():
    # reorderable_logging_functions does not remove a logging.Logger break on torch 2.13; ignoring the method does
    report = _recorded("logger_info")
    found = [f for f in report["findings"] if f["code"] == "TCD103"]  # the call, and Logger.info inside
    assert found
    for finding in found:
        verified = finding["fix"]["verified"]
        assert verified["change"] == "torch._dynamo.config.ignore_logging_functions.update({logging.Logger.info})"
        assert verified["effect"] == "fixed" and verified["ok"] is True
        assert verified["before"]["graph_breaks"] == 2 and verified["after"]["graph_breaks"] == 0


def test_allow_unspec_int_on_nn_module_and_dynamic_true_for_a_counter():
    verified = _verified(_recorded("module_counter"), "TCD204")
    change = "torch._dynamo.config.allow_unspec_int_on_nn_module = True; torch.compile(..., dynamic=True)"
    assert verified["change"] == change
    # the setting alone left one recompile (the attribute dynamic after its first change); dynamic=True none
    assert (verified["before"]["recompiles"], verified["after"]["recompiles"]) == (3, 0)
    assert verified["effect"] == "fixed" and verified["ok"] is True


def test_mark_dynamic_removes_shape_recompiles_but_dynamic_true_not_dtype_ones():
    shape = _verified(_recorded("shape_recompile"), "TCD301")
    assert shape["change"] == "torch._dynamo.mark_dynamic(ids, 1) before each call of `SentenceEncoder.forward`"
    assert shape["effect"] == "fixed" and (shape["before"]["recompiles"], shape["after"]["recompiles"]) == (3, 0)
    dtype = _verified(_recorded("dtype_recompile"), "TCD201")
    # no recompile fewer, and compiling took twice as long: judged as doctor fix judges a trial, worse
    assert dtype["effect"] == "worse" and dtype["detail"] == "compile 0.550 s → 1.07 s"
    assert dtype["before"]["recompiles"] == dtype["after"]["recompiles"] == 1


def test_knock_on_recompiles_share_the_break_experiment():
    """The dev corpus's case 04 (a draft model's metrics), recorded from ../shared/corpus-dev."""
    report = _recorded("draft_model_metrics")
    effects = sorted(
        (f["code"], f["reason_class"], f["fix"]["verified"]["effect"])
        for f in report["findings"]
        if f["fix"]["verified"]
    )
    # the two recompiles of numbers carried across the .item() break (TCD216) go with the break's fix
    assert effects == [
        ("TCD104", None, "fixed"),
        ("TCD216", "float_specialization", "fixed"),
        ("TCD216", "int_specialization", "fixed"),
    ]


def test_raising_the_recompile_limit_is_worse_though_the_limit_is_no_longer_hit():
    report = _recorded("int_arg_recompile_limit")
    limit = _verified(report, "TCD402")
    assert limit["change"] == "torch._dynamo.config.recompile_limit = 64"
    # the limit is no longer hit, but it compiles even more: one vocabulary with doctor fix, where that is refused
    assert limit["effect"] == "worse" and limit["detail"] == "recompiles 8 → 11"
    assert limit["after"]["recompile_limit_hits"] == 0 and limit["after"]["recompiles"] > limit["before"]["recompiles"]
    assert _verified(report, "TCD202")["effect"] == "fixed"  # dynamic=True


def test_the_experiments_kept_beside_a_capture_are_not_part_of_its_run():
    """A kept experiment is a run of its own: re-reading the capture does not count it as another process."""
    report = reread(TRY_FIXES / "item_metric.capture")
    assert not any("processes compiled" in note for note in report.notes)
    assert [finding.ranks for finding in report.findings] == [(0,)] * len(report.findings)
    assert report.summary.graph_break_records == 1


@pytest.mark.slow
def test_fixes_are_run_live_and_a_kept_capture_reports_their_effects_again(shared_run, tmp_path):
    """The live run: the experiment re-runs the program with the fix, and `doctor report DIR` of the kept
    `--try-fixes --artifacts DIR` capture puts the same measured effects back on the fixes, in the terminal as in
    JSON; a damaged experiment record leaves its fix unverified and fails nothing."""
    args = ("explain", "item_metric.py", "--try-fixes", "--jobs", "2", "--format", "json")
    live = shared_run(*args, cwd=SAMPLES, keep_artifacts=True)
    assert live.returncode == 0, live.stderr[-2000:]
    verified = _verified(live.json, "TCD104")
    assert verified["effect"] == "fixed" and verified["after"]["graph_breaks"] == 0
    terminal = doctor_in_process("report", str(live.artifacts), cwd=tmp_path)
    assert "verified: torch._dynamo.config.capture_scalar_outputs = True" in terminal.stdout
    assert "fixed: graph breaks 1 → 0" in terminal.stdout
    again = doctor_in_process("report", str(live.artifacts), "--format", "json", cwd=tmp_path).json
    assert _verified(again, "TCD104") == verified
    copy = tmp_path / "copy"  # the shared capture stays as it is
    shutil.copytree(live.artifacts, copy)
    records = list(copy.glob("experiments/*/experiment.json"))
    assert records
    for record in records:
        record.write_text("{not json")  # a damaged record: its fix is reported unverified, nothing fails
    damaged = doctor_in_process("report", str(copy), "--format", "json", cwd=tmp_path).json
    [finding] = [f for f in damaged["findings"] if f["code"] == "TCD104"]
    assert finding["fix"]["verified"] is None


# -- in-process: the engine's second run of an experiment whose verdict one timed run made -------------------------
def _timed(report, compile_s: float):
    return replace(report, summary=replace(report.summary, compile_time_s=compile_s))


@pytest.mark.parametrize(("compile_s", "effect"), [((9.0, 0.4), "fixed"), ((9.0, 8.5), "trade-off")])
def test_an_experiment_one_slow_run_judged_is_run_again_and_the_faster_run_is_kept(tmp_path, compile_s, effect):
    """The recorded item_metric experiment (capture_scalar_outputs) as its runs: the first slowed by the machine
    to 9 s of compile against the plain run's, the second as fast as it (fixed), or slow again (a trade-off that
    stands). With a kept capture, the run on disk is the one reported."""
    plain = reread(TRY_FIXES / "item_metric.capture")
    experiment_run = reread(TRY_FIXES / "item_metric.capture" / "experiments" / "0")
    times = iter(compile_s)
    told: list[str] = []

    def measure(experiment, workdir):
        seconds = next(times)
        (workdir / "which.txt").write_text(str(seconds))
        return _timed(experiment_run, seconds)

    class Told:
        def started(self, total):
            pass

        def running(self, title):
            told.append(title)

        def finished(self, done, total, line):
            pass

    kept = tmp_path / "kept"
    tried = try_fixes(plain, measure, kept, 1, lambda _: nullcontext(), Told())
    verified = _verified(json.loads(render(tried, "json")), "TCD104")
    assert verified["effect"] == effect
    assert told[-1].endswith(f"({AGAIN})") and next(times, None) is None  # measured twice, no more
    chosen = min(compile_s)  # the faster run, whichever verdict it gives
    assert verified["after"]["compile_time_s"] == chosen
    assert (kept / "experiments" / "0" / "which.txt").read_text() == str(chosen)
    assert sorted(p.name for p in (kept / "experiments").iterdir()) == ["0"]
