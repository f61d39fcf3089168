"""`--try-fixes`: each suggested no-code-change fix is re-run and its measured effect reported."""

from __future__ import annotations

import shutil

import pytest
from support.doctor import DoctorRun, doctor_here, doctor_in_process
from support.paths import CORPUS, RULES, SAMPLES

pytestmark = pytest.mark.slow


def _verified(report: dict, code: str) -> dict:
    [finding] = [f for f in report["findings"] if f["code"] == code]
    verified = finding["fix"]["verified"]
    assert verified is not None, finding
    return verified


def _explain(script: str, cwd=SAMPLES) -> dict:
    run = doctor_here("explain", script, "--try-fixes", "--jobs", "2", "--format", "json", cwd=cwd)
    assert run.returncode == 0, run.stderr[-2000:]
    return run.json


def test_capture_scalar_outputs_removes_the_item_break():
    verified = _verified(_explain("item_metric.py"), "TCD104")
    assert verified["change"] == "torch._dynamo.config.capture_scalar_outputs = True"
    assert verified["effect"] == "fixed" and verified["ok"] is True
    assert verified["before"]["graph_breaks"] == 1 and verified["after"]["graph_breaks"] == 0
    assert verified["after"]["graphs"] == 1


def test_ignore_logging_functions_removes_a_logger_break():
    # reorderable_logging_functions does not remove a logging.Logger break on torch 2.13; ignoring the method does
    report = _explain("logger_info.py", cwd=RULES / "TCD103")
    for finding in [f for f in report["findings"] if f["code"] == "TCD103"]:  # the call, and Logger.info inside
        verified = finding["fix"]["verified"]
        assert verified["change"] == "torch._dynamo.config.ignore_logging_functions.update({logging.Logger.info})"
        assert verified["effect"] == "fixed" and verified["ok"] is True
        assert verified["before"]["graph_breaks"] == 2 and verified["after"]["graph_breaks"] == 0


def test_allow_unspec_int_on_nn_module_for_a_counter():
    verified = _verified(_explain("module_counter.py"), "TCD204")
    assert verified["change"] == "torch._dynamo.config.allow_unspec_int_on_nn_module = True"
    # one recompile remains: the attribute becomes dynamic after the first change
    assert (verified["before"]["recompiles"], verified["after"]["recompiles"]) == (3, 1)
    assert verified["effect"] == "improved" and verified["ok"] is True


def _kept(shared_run) -> DoctorRun:
    """shape_recompile.py's `--try-fixes` run with its capture (and its experiments) kept, once per session."""
    args = ("explain", "shape_recompile.py", "--try-fixes", "--jobs", "2", "--format", "json")
    run = shared_run(*args, keep_artifacts=True)
    assert run.returncode == 0, run.stderr[-2000:]
    return run


def test_mark_dynamic_removes_shape_recompiles_but_dynamic_true_not_dtype_ones(shared_run):
    shape = _verified(_kept(shared_run).json, "TCD301")
    assert shape["change"] == "torch._dynamo.mark_dynamic(ids, 1) before each call of `SentenceEncoder.forward`"
    assert shape["effect"] == "fixed" and (shape["before"]["recompiles"], shape["after"]["recompiles"]) == (3, 0)
    dtype = _verified(_explain("dtype_recompile.py"), "TCD201")
    assert dtype["effect"] == "no effect"
    assert dtype["before"]["recompiles"] == dtype["after"]["recompiles"] == 1


def test_knock_on_recompiles_share_the_break_experiment():
    if not (CORPUS / "04_draft_model_metrics").is_dir():
        pytest.skip("shared/corpus-dev is not beside the checkout")
    report = _explain("script.py", cwd=CORPUS / "04_draft_model_metrics")
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


def test_raising_the_recompile_limit_is_reported_as_mixed():
    report = _explain("int_arg_recompile_limit.py")
    limit = _verified(report, "TCD402")
    assert limit["change"] == "torch._dynamo.config.recompile_limit = 64"
    assert limit["effect"] == "mixed"  # the limit is no longer hit, but it compiles even more
    assert limit["after"]["recompile_limit_hits"] == 0 and limit["after"]["recompiles"] > limit["before"]["recompiles"]
    assert _verified(report, "TCD202")["effect"] == "fixed"  # dynamic=True


def test_a_kept_capture_reports_the_measured_effects_again(shared_run, tmp_path):
    """`doctor report DIR` of a `--try-fixes --artifacts DIR` run: the experiments kept beside the capture put
    the same measured effects back on the fixes, in the terminal as in JSON."""
    live = _kept(shared_run)
    terminal = doctor_in_process("report", str(live.artifacts), cwd=tmp_path)
    assert "verified: torch._dynamo.mark_dynamic(ids, 1)" in terminal.stdout
    assert "fixed: recompiles 3 → 0" in terminal.stdout
    again = doctor_in_process("report", str(live.artifacts), "--format", "json", cwd=tmp_path).json
    assert _verified(again, "TCD301") == _verified(live.json, "TCD301")
    copy = tmp_path / "copy"  # the shared capture stays as it is
    shutil.copytree(live.artifacts, copy)
    records = list(copy.glob("experiments/*/experiment.json"))
    assert records
    for record in records:
        record.write_text("{not json")  # a damaged record: its fix is reported unverified, nothing fails
    damaged = doctor_in_process("report", str(copy), "--format", "json", cwd=tmp_path).json
    [finding] = [f for f in damaged["findings"] if f["code"] == "TCD301"]
    assert finding["fix"]["verified"] is None
