"""The command line as users meet it: targets of every kind, bad input, failing targets, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import types

import pytest
from support.doctor import doctor_here, doctor_in_process, run_doctor
from support.paths import REPO

from torchcompile_doctor.capture import _bootstrap

COMPILED_THEN = """\
import torch

@torch.compile(backend="eager")
def f(x):
    y = x + 1
    print("y")
    return y * 2

f(torch.ones(3))
{tail}
"""


def _script(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


# --- bad input: one line, exit 2, no traceback of ours ------------------------------------------


@pytest.mark.parametrize(
    "args, message",
    [
        (["explain", "does_not_exist.py"], "Target not found: does_not_exist.py"),
        (["explain", "."], "is a directory"),
        pytest.param(  # the module is looked for in a child, with the target's own search path
            ["explain", "-m", "no_such_module_here"], "module not found: no_such_module_here", marks=pytest.mark.slow
        ),
        (["explain", "-m", "not a module"], "not a module name"),
        (["explain"], "missing TARGET"),
        (["explain", "x.py", "--backend", "nope"], "unknown --backend"),
        (["explain", "x.py", "--format", "yaml"], "unknown --format"),
        (["rule", "TCD999"], "no rule TCD999"),
        (["report", "no/such/dir"], "no such file or directory"),
    ],
)
def test_bad_input_is_one_line_exit_2(tmp_path, args, message):
    (tmp_path / "x.py").write_text("print('hi')\n")
    run = doctor_here(*args, cwd=tmp_path)
    assert run.returncode == 2, run.stderr
    assert message in run.stderr
    assert "Traceback" not in run.stderr
    assert run.stderr.strip().count("\n") == 0, run.stderr


def test_syntax_error_names_file_and_line(tmp_path):
    _script(tmp_path, "broken.py", "import torch\n\ndef f(:\n    pass\n")
    run = doctor_here("explain", "broken.py", cwd=tmp_path)
    assert run.returncode == 2
    assert run.stderr.strip() == "doctor: error: syntax error in broken.py:3: invalid syntax"


@pytest.mark.slow  # each run imports the target in the capture's child process
def test_missing_function_and_bad_inputs(tmp_path):
    # the names are checked before anything imports torch: this module imports it only where it is called
    _script(
        tmp_path,
        "model.py",
        """\
        def step(x):
            return x * 2
        def inputs():
            import torch
            return (torch.ones(2),)
        def not_a_tuple():
            return [2.0]
    """,
    )
    missing = doctor_here("explain", "model.py:nope", "--inputs", "model.py:inputs", cwd=tmp_path)
    assert missing.returncode == 2 and "has no function 'nope'" in missing.stderr
    # a name that is no function: the child's same check, with its own words (test_a_value_is_no_function_target)
    bad = doctor_here("explain", "model.py:step", "--inputs", "model.py:not_a_tuple", cwd=tmp_path)
    assert bad.returncode == 2 and "must return a tuple" in bad.stderr
    no_inputs = doctor_here("explain", "model.py:step", cwd=tmp_path)
    assert no_inputs.returncode == 2 and "needs --inputs" in no_inputs.stderr


def test_a_value_is_no_function_target():
    """What the capture child says of `FILE.py:NAME` naming a value, where the live run above has it say that the
    name is missing: the CLI prints either as one line with exit 2."""
    with pytest.raises(_bootstrap.UsageError, match=r"^model\.py:value is not callable \(it is a int\)$"):
        _bootstrap._attribute(types.SimpleNamespace(value=3), "value", "model.py")


def test_output_in_missing_dir_fails_before_running(tmp_path):
    marker = tmp_path / "ran"
    _script(tmp_path, "s.py", f"open({str(marker)!r}, 'w').write('x')\n")
    run = doctor_here("explain", "s.py", "--output", str(tmp_path / "missing" / "r.json"), cwd=tmp_path)
    assert run.returncode == 2 and "--output directory does not exist" in run.stderr
    assert not marker.exists()


# --- the target failing: report what was captured, exit 3 ----------------------------------------


# one capture of it, shared by the two tests below
RAISES_AFTER_COMPILING = COMPILED_THEN.format(tail="raise RuntimeError('boom after compile')")


@pytest.mark.slow
def test_target_raises_after_compiling(captured_run):
    _, run = captured_run(RAISES_AFTER_COMPILING)
    assert run.returncode == 3
    report = run.json
    assert report["target_status"] == "exception" and report["target_exit_code"] == 1
    kinds = [f["kind"] for f in report["findings"]]
    assert kinds[0] == "target_error" and "graph_break" in kinds  # the break compiled before the error is kept
    error = report["findings"][0]
    assert "RuntimeError: boom after compile" in error["title"]
    assert error["location"]["line"] == 10 and error["location"]["file"].endswith("s.py")
    # the traceback the user sees starts at their code, not at the doctor's bootstrap (#34)
    printed = run.stderr[run.stderr.index("Traceback (most recent call last):") :]
    first_frame = printed.splitlines()[1]
    assert first_frame.startswith('  File "') and '/s.py", line 10, in <module>' in first_frame, printed[:1000]
    assert "torchcompile_doctor" not in printed.split("RuntimeError: boom after compile")[0]


@pytest.mark.slow
def test_report_exits_as_the_run_it_rereads(captured_run):
    """`doctor report` exits 3 where the log records that the target failed (as `explain` did on that run),
    0 where it records nothing about how the target ended (a bare TORCH_TRACE dir)."""
    folder, live = captured_run(RAISES_AFTER_COMPILING)
    assert live.returncode == 3, live.stderr[-2000:]
    again = doctor_here("report", str(live.artifacts), "--format", "json", cwd=folder)
    assert again.returncode == 3, again.stderr[-2000:]
    assert again.json["target_status"] == "exception" and again.json["findings"] == live.json["findings"]
    bare = doctor_here("report", str(live.artifacts / "trace"), "--format", "json", cwd=folder)
    assert bare.returncode == 0, bare.stderr[-2000:]
    assert bare.json["target_status"] == "unknown"


@pytest.mark.slow
@pytest.mark.parametrize(
    "program, status, code, exit_code",
    [
        (COMPILED_THEN.format(tail="import sys; sys.exit(4)"), "sys_exit", 4, 3),
        # a clean exit is no failure: shown without torch (what was compiled before an exit is kept: the others)
        ("import sys\n\nprint('done')\nsys.exit(0)\n", "sys_exit", 0, 0),
        (COMPILED_THEN.format(tail="import os; os._exit(7)"), "exit", 7, 3),
    ],
    ids=["sys.exit(4)", "sys.exit(0)", "os._exit(7)"],
)
def test_target_exits(tmp_path, program, status, code, exit_code):
    _script(tmp_path, "ex.py", program)
    run = doctor_here("explain", "ex.py", "--format", "json", cwd=tmp_path)
    assert run.returncode == exit_code, run.stderr[-2000:]
    report = run.json
    assert report["target_status"] == status and report["target_exit_code"] == code
    assert report["summary"]["graph_breaks"] == (1 if "torch.compile" in program else 0)
    assert any(f["kind"] == "target_error" for f in report["findings"]) == (code != 0)


@pytest.mark.slow
def test_timeout_kills_the_target_and_still_reports(tmp_path):
    _script(tmp_path, "hang.py", COMPILED_THEN.format(tail="import time; time.sleep(600)"))
    # the CLI in this process (the target in its child as always): what is stopped is the target, not the doctor
    run = doctor_here("explain", "hang.py", "--timeout", "10", "--format", "json", cwd=tmp_path, timeout=120)
    if run.returncode == 3 and run.json["summary"]["graph_breaks"] == 0:
        # on a loaded machine 10 s may end the run before torch is imported and the function compiled: the test is
        # of what a run stopped after it compiled reports, so give it the time to get there once more
        run = doctor_here("explain", "hang.py", "--timeout", "40", "--format", "json", cwd=tmp_path, timeout=180)
    assert run.returncode == 3
    report = run.json
    assert report["target_status"] == "timeout"
    assert report["summary"]["graph_breaks"] == 1
    assert report["findings"][0]["title"] in {f"The run was stopped at the --timeout of {s} s" for s in (10, 40)}
    # where it was stuck: the main thread's stack when it was stopped, at the user's line
    location = report["findings"][0]["location"]
    assert location["file"].endswith("hang.py") and "time.sleep(600)" in location["source"], location


@pytest.mark.slow
def test_segfault_is_reported(tmp_path):
    _script(tmp_path, "crash.py", COMPILED_THEN.format(tail="import ctypes; ctypes.string_at(0)"))
    run = doctor_here("explain", "crash.py", "--format", "json", cwd=tmp_path)  # the target crashes in its child
    assert run.returncode == 3
    report = run.json
    assert report["target_status"] == "signal" and "SIGSEGV" in report["findings"][0]["title"]
    assert report["summary"]["graph_breaks"] == 1


# --- target kinds ------------------------------------------------------------------------------


@pytest.mark.slow
def test_script_arguments_after_double_dash(tmp_path):
    _script(
        tmp_path,
        "args.py",
        """\
        import sys, json
        json.dump(sys.argv[1:], open("argv.json", "w"))
    """,
    )
    run = doctor_here("explain", "args.py", "--", "--epochs", "1", "-x", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert json.loads((tmp_path / "argv.json").read_text()) == ["--epochs", "1", "-x"]


@pytest.mark.slow
def test_module_target(tmp_path):
    package = tmp_path / "mypkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "train.py").write_text(COMPILED_THEN.format(tail="import sys; assert sys.argv[1:] == ['--fast']"))
    run = doctor_here("explain", "-m", "mypkg.train", "--format", "json", "--", "--fast", cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    report = run.json
    assert report["target"] == "-m mypkg.train"
    [finding] = report["findings"]
    assert finding["location"]["file"] == str(package / "train.py") and finding["location"]["line"] == 6


@pytest.mark.slow
def test_function_target_runs_explain_and_says_where_it_disagrees(tmp_path):
    _script(
        tmp_path,
        "model.py",
        """\
        import torch

        def step(x, y):
            z = x @ y
            for _ in range(3):
                print(z.sum())
            return z.relu()

        def example_inputs():
            return (torch.randn(4, 4), torch.randn(4, 4))
    """,
    )
    run = doctor_here(
        "explain",
        "model.py:step",
        "--inputs",
        "model.py:example_inputs",
        "--backend",
        "eager",
        "--format",
        "json",
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    report = run.json
    assert report["backend"] == "eager (override of inductor)"
    [finding] = report["findings"]
    assert finding["kind"] == "frame_skipped" and finding["location"]["line"] == 6
    # explain falls back with the frame: it reports no graphs here, which the report explains
    assert report["explain"]["graph_count"] == 0
    assert any("explain disagrees" in n and "fell back to eager" in n for n in report["notes"])


@pytest.mark.slow
def test_function_target_explain_agrees_on_a_simple_break(tmp_path):
    _script(
        tmp_path,
        "model.py",
        """\
        import torch

        def step(x):
            if x.sum() > 0:
                x = x * 2
            return x + 1

        def example_inputs():
            return (torch.ones(4),)
    """,
    )
    run = doctor_here(
        "explain",
        "model.py:step",
        "--inputs",
        "model.py:example_inputs",
        "--format",
        "json",
        "--backend",
        "eager",
        cwd=tmp_path,
    )
    report = run.json
    assert report["explain"]["graph_count"] == report["summary"]["graphs"] == 2
    assert report["explain"]["graph_break_count"] == report["summary"]["graph_breaks"] == 1
    assert report["explain"]["ops_per_graph"] and not report["notes"]


# --- artifacts and the offline report ---------------------------------------------------------


@pytest.mark.slow
def test_artifacts_are_kept_and_report_rerenders_them(tmp_path, shared_run):
    # the session's capture of the sample, kept with --artifacts (tests/conftest.py; the run test_recapture.py reads)
    live = shared_run("explain", "int_arg_recompile_limit.py", "--format", "json", keep_artifacts=True)
    artifacts = live.artifacts
    assert live.returncode == 0
    traces = list((artifacts / "trace").glob("dedicated_log_torch_trace_*.log"))
    assert len(traces) == 1 and (artifacts / "doctor_events.jsonl").is_file()
    offline = doctor_in_process("report", str(artifacts), "--format", "json", cwd=tmp_path)
    assert offline.returncode == 0, offline.stderr
    live_report, offline_report = live.json, offline.json
    assert offline_report["findings"] == live_report["findings"]
    assert offline_report["summary"] == live_report["summary"]


# the capture's temp dir removed without --artifacts: tests/cli/test_hardening.py (writes only its output)


# --- start-up ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_cli_does_not_import_torch():
    code = (
        "import sys, torchcompile_doctor.cli, torchcompile_doctor.analysis, torchcompile_doctor.renderers.terminal; "
        "print('torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.slow
def test_help_lists_commands():
    run = run_doctor("--help")
    assert run.returncode == 0
    for command in ("explain", "report", "rules", "rule"):
        assert command in run.stdout
