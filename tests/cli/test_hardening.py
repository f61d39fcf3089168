"""Hardening (issue #7): bad input gets one clear line, a failing or hostile target is reported with
everything captured before it, and the doctor writes nothing outside its own places and never reaches
the network. (Damaged trace logs and depyf dumps: tests/test_fuzz.py and tests/test_depyf_dump.py.)
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import textwrap
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from support.captures import reread
from support.doctor import doctor_here, doctor_in_process, run_doctor
from support.nothing import NOTHING_KINDS, nothing_to_read
from support.paths import DATA

from torchcompile_doctor.renderers import FORMATS

BREAK_THEN = """\
import torch


def step(x):
    x = x + 1
    print("break")
    return x * 2


torch.compile(step, backend="eager")(torch.ones(2))
{tail}
"""


def _script(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.write_text(textwrap.dedent(text))
    return path


def _one_line_error(run, code: int = 2) -> str:
    assert run.returncode == code, (run.returncode, run.stderr[-2000:])
    assert "Traceback" not in run.stderr and run.stderr.startswith("doctor: error: ")
    assert run.stderr.strip().count("\n") == 0, run.stderr
    return run.stderr


# ---------------------------------------------------------------------------------------------- bad input


def test_target_that_is_not_python(tmp_path):
    (tmp_path / "notes.txt").write_text("hello\n")
    assert "is not a Python file" in _one_line_error(doctor_here("explain", "notes.txt", cwd=tmp_path))
    (tmp_path / "blob.py").write_bytes(b"\x00\x01binary")
    assert "is not Python source" in _one_line_error(doctor_here("check", "blob.py", cwd=tmp_path))


def test_unreadable_target(tmp_path):
    if os.geteuid() == 0:  # root reads any mode: a file whose read fails for everyone (EIO)
        (tmp_path / "secret.py").symlink_to("/proc/self/mem")
    else:
        _script(tmp_path, "secret.py", "print(1)\n").chmod(0)
    assert "cannot read target secret.py" in _one_line_error(doctor_here("explain", "secret.py", cwd=tmp_path))


def test_output_that_cannot_be_written_fails_before_running(tmp_path):
    marker = tmp_path / "ran"
    _script(tmp_path, "s.py", f"open({str(marker)!r}, 'w').write('x')\n")
    (tmp_path / "a_file").write_text("")
    for command in ("explain", "check", "guards"):
        run = doctor_here(command, "s.py", "--output", "a_file/report.txt", cwd=tmp_path)
        assert "--output directory does not exist" in _one_line_error(run)
    assert not marker.exists()


@pytest.mark.slow
def test_torch_missing_is_a_usage_error_and_offline_commands_still_work(tmp_path):
    fake = tmp_path / "site" / "torch"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('No module named torch (simulated)')\n")
    # the target imports torch (the doctor does not: settings made before that import must work)
    _script(tmp_path, "s.py", "import torch\nprint(1)\n")
    env = {"PYTHONPATH": str(tmp_path / "site")}
    for command in ("explain", "check", "guards"):
        error = _one_line_error(run_doctor(command, "s.py", cwd=tmp_path, env=env))
        assert "torch cannot be imported" in error and "-m pip install torch" in error
    capture = DATA / "captures" / "helper_two_callsites"
    assert run_doctor("report", str(capture), "--format", "json", cwd=tmp_path, env=env).returncode == 0
    assert run_doctor("rules", cwd=tmp_path, env=env).returncode == 0
    assert run_doctor("--help", cwd=tmp_path, env=env).returncode == 0


@pytest.mark.parametrize("kind", NOTHING_KINDS)
def test_report_of_what_holds_no_record_is_a_usage_error(tmp_path, kind):
    """Nothing read is never "No findings": `doctor report` refuses in one line, in every format, as `doctor check
    --from-capture` does; `doctor guards --dump` of it refuses too."""
    given = nothing_to_read(tmp_path, kind)
    for fmt in ("terminal", "json", "sarif"):
        run = doctor_in_process("report", given.name, "--format", fmt, cwd=tmp_path)
        assert (run.returncode, run.stdout) == (2, ""), (kind, fmt, run.stdout[-2000:])
        assert run.stderr == f"doctor: error: nothing to read in {given.name}: no trace, no capture, no log records\n"
    guards = doctor_in_process("guards", "--dump", given.name, cwd=tmp_path)
    assert guards.returncode == 2 and guards.stdout == "" and guards.stderr.count("\n") == 1
    if kind == "empty folder":  # a file is no dump folder at all, and says so
        assert guards.stderr == run.stderr


def test_a_log_that_cannot_be_gunzipped_is_one_line(tmp_path):
    damaged = tmp_path / "job.log.gz"
    damaged.write_bytes(b"\x1f\x8b" + random.Random(34).randbytes(5_000))  # gzip's magic, then noise
    for args in (["report", damaged.name], ["check", "--from-capture", damaged.name]):
        run = doctor_in_process(*args, cwd=tmp_path)
        assert run.returncode == 2 and run.stdout == "", run.stderr
        assert run.stderr.startswith("doctor: error: cannot gunzip job.log.gz: ") and run.stderr.count("\n") == 1


def test_report_of_a_recorded_capture_and_a_recorded_job_log_still_reads_them(tmp_path):
    """The controls of the refusal above: what torch wrote is read as before, however little it holds."""
    capture = doctor_in_process("report", str(DATA / "captures" / "helper_two_callsites"), cwd=tmp_path)
    assert capture.returncode == 0 and "TCD1" in capture.stdout, capture.stderr[-2000:]
    job = doctor_in_process("report", str(DATA / "gpu" / "tf32_matmul" / "truth.log.gz"), cwd=tmp_path)
    assert job.returncode == 0 and "TCD418" in job.stdout, job.stderr[-2000:]
    trace = doctor_in_process("report", str(DATA / "traces" / "graph_break_print.log"), cwd=tmp_path)
    assert trace.returncode == 0 and "No findings" not in trace.stdout, trace.stderr[-2000:]


@pytest.mark.slow
def test_depyf_missing_falls_back_to_the_trace_with_a_warning(tmp_path):
    fake = tmp_path / "site" / "depyf"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('depyf is broken here (simulated)')\n")
    _script(tmp_path, "s.py", BREAK_THEN.format(tail=""))
    env = {"PYTHONPATH": str(tmp_path / "site")}
    run = run_doctor("guards", "s.py", "--dump", "dump", "--format", "json", cwd=tmp_path, env=env)
    assert run.returncode == 0, run.stderr[-2000:]
    assert any("depyf dump unavailable (ImportError: depyf is broken here" in note for note in run.json["notes"])
    assert run.json["guards"] and run.json["guards"][0]["entries"][0]["tree_guards"] > 0  # from TORCH_TRACE


# ---------------------------------------------------------------------------------------------- the target


@pytest.mark.slow
def test_target_raising_before_any_compile_is_reported(tmp_path):
    _script(tmp_path, "early.py", "import torch\nraise ValueError('bad config')\n")
    run = doctor_here("explain", "early.py", "--format", "json", cwd=tmp_path)
    assert run.returncode == 3
    assert run.json["target_status"] == "exception" and run.json["summary"]["graphs"] == 0
    assert "ValueError: bad config" in run.json["findings"][0]["title"]


@pytest.mark.slow
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "ci-cancel"])
def test_ctrl_c_stops_the_child_and_prints_a_partial_report(tmp_path, stop):
    ready = tmp_path / "compiled"
    _script(
        tmp_path,
        "slow.py",
        BREAK_THEN.format(tail=f"import os, time\nopen({str(ready)!r}, 'w').write(str(os.getpid()))\ntime.sleep(600)"),
    )
    doctor = subprocess.Popen(
        [sys.executable, "-m", "torchcompile_doctor", "explain", "slow.py", "--format", "json"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # started with SIGINT ignored, as by some job runners and test workers: Python then installs no
        # KeyboardInterrupt handler of its own, and the doctor must still stop on it
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    deadline = time.monotonic() + 120
    while not ready.exists() and time.monotonic() < deadline and doctor.poll() is None:
        time.sleep(0.2)
    assert ready.exists(), "the target never reached its sleep"
    doctor.send_signal(stop)
    stdout, stderr = doctor.communicate(timeout=60)
    assert doctor.returncode == 130, stderr[-2000:]
    report = json.loads(stdout)
    assert report["target_status"] == "interrupted" and report["summary"]["graph_breaks"] == 1
    stopped = next(f for f in report["findings"] if f["code"] == "TCD405")
    name = "SIGINT (Ctrl-C)" if stop == signal.SIGINT else "SIGTERM"
    assert re.fullmatch(rf"The run was stopped by {re.escape(name)} after \d+\.\d s", stopped["title"]), stopped
    assert "Traceback" not in stderr
    target_pid = int(ready.read_text())
    assert not Path(f"/proc/{target_pid}").exists(), "the target outlived the doctor"


# a target that meddles with what the doctor relies on (the working directory, sys.path, logging, TORCH_LOGS),
# then floods stdout and stderr and reads stdin: one run, whose report the two tests below read
MEDDLER = """\
import logging
import os
import sys

os.environ["TORCH_LOGS"] = "+dynamo"
os.chdir("elsewhere")
sys.path.insert(0, os.path.abspath("no-such-folder"))
logging.basicConfig(level=logging.DEBUG, force=True)
logging.getLogger("torch").handlers.clear()
"""
NOISY = """\
import sys
sys.stdout.write("x" * 3_000_000 + "\\n")
sys.stderr.write("y" * 3_000_000 + "\\n")
print("stdin gave", repr(sys.stdin.read()))
"""


@pytest.fixture(scope="module")
def meddling_noisy_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("meddler")
    (folder / "elsewhere").mkdir()
    _script(folder, "meddler.py", MEDDLER + BREAK_THEN.format(tail=NOISY))
    return run_doctor("explain", "meddler.py", "--format", "json", cwd=folder)


@pytest.mark.slow
def test_noisy_target_and_stdin_leave_the_report_intact(meddling_noisy_run):
    run = meddling_noisy_run
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.json["summary"]["graph_breaks"] == 1  # stdout is the report alone: it parses
    assert "x" * 1000 in run.stderr and "y" * 1000 in run.stderr  # the target's output passed through
    assert "stdin gave ''" in run.stderr  # EOF, not a hang


@pytest.mark.slow
def test_target_changing_cwd_path_logging_and_torch_logs(meddling_noisy_run):
    run = meddling_noisy_run
    assert run.returncode == 0, run.stderr[-2000:]
    [finding] = run.json["findings"]
    assert finding["code"] == "TCD101" and finding["location"]["line"] == 15


# ---------------------------------------------------------------------------------------------- output


def test_hostile_source_text_is_escaped_in_every_format(tmp_path):
    """tests/data/hostile/hostile.py, recorded (`python tests/support/recording.py record ...`): its source line
    holds HTML, Markdown, an ANSI colour and GitHub workflow-command syntax."""
    capture = DATA / "hostile" / "hostile.capture"
    hostile = (DATA / "hostile" / "hostile.py").read_text().splitlines()[5].strip()
    assert reread(capture).findings[0].location.source == hostile
    for fmt in FORMATS:
        text = doctor_in_process("report", str(capture), "--format", fmt, cwd=tmp_path).stdout
        assert "\x1b" not in text, fmt  # no terminal escape reaches any output
        if fmt == "markdown":  # raw HTML only inside code spans and blocks, where Markdown shows it as text
            prose = re.sub(r"(`+).+?\1", "", re.sub(r"(?s)(`{3,}).*?\1", "", text))
            assert "<script>" not in prose
        if fmt in ("json", "sarif"):
            assert "<script>alert(1)</script>" in json.dumps(json.loads(text))  # data, kept verbatim
        if fmt == "junit":
            ElementTree.fromstring(text)  # well-formed XML
        if fmt == "github":
            commands = [line for line in text.splitlines() if line.startswith("::")]
            assert len(commands) == len(text.splitlines())  # the source's `::error::` cannot start a command
            assert "%250A" in text  # a literal %0A in the source is escaped, not turned into a newline


# ---------------------------------------------------------------------------------------------- safety


@pytest.mark.slow
def test_two_doctors_at_once_write_only_their_outputs_and_never_the_network(tmp_path):
    """Two doctors in one directory at once, each its own report; nothing written but the reports (no capture left
    in the working directory, and the captures' temp dirs removed from TMPDIR), no network touched."""
    work, temp, guard = tmp_path / "work", tmp_path / "tmp", tmp_path / "guard"
    for directory in (work, temp, guard):
        directory.mkdir()
    attempts = tmp_path / "network_attempts"
    (guard / "sitecustomize.py").write_text(
        textwrap.dedent(
            f"""\
            import socket

            def _refuse(*args, **kwargs):
                with open({str(attempts)!r}, "a") as log:
                    log.write(repr(args) + "\\n")
                raise OSError("network access attempted")

            socket.socket.connect = _refuse
            socket.create_connection = _refuse
            """
        )
    )
    _script(work, "a.py", BREAK_THEN.format(tail=""))
    _script(work, "b.py", BREAK_THEN.format(tail="").replace('print("break")', "x.sum().item()"))
    env = {k: v for k, v in os.environ.items() if k != "TORCH_LOGS"}
    env.update(TMPDIR=str(temp), PYTHONPATH=str(guard), PYTHONDONTWRITEBYTECODE="1")
    command = [sys.executable, "-m", "torchcompile_doctor", "explain", "--format", "json"]
    doctors = [
        subprocess.Popen(
            [*command, f"{name}.py", "--output", f"{name}.json"], cwd=work, env=env, stderr=subprocess.PIPE
        )
        for name in ("a", "b")
    ]
    errors = [doctor.communicate(timeout=300)[1].decode(errors="replace") for doctor in doctors]
    assert [doctor.returncode for doctor in doctors] == [0, 0], errors[0][-2000:] + errors[1][-2000:]
    reports = [json.loads((work / f"{name}.json").read_text()) for name in ("a", "b")]
    assert [[f["code"] for f in r["findings"]] for r in reports] == [["TCD101"], ["TCD104"]]
    assert sorted(p.name for p in work.rglob("*")) == ["a.json", "a.py", "b.json", "b.py"]
    # the captures' temp dirs are gone; torch's own inductor cache dir (a plain run makes it too) may remain
    assert [p.name for p in temp.iterdir() if not p.name.startswith("torchinductor_")] == []
    assert not attempts.exists()
