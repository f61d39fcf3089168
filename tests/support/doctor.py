"""Running the real CLI as a user would, four ways, from the most to the least expensive:
- `run_doctor(...)`: the CLI in a child process of its own. For tests about the process itself or its side
  effects (files written, temp dirs, signals, timeouts, a fake torch on PYTHONPATH, concurrency).
- `doctor_here(...)`: the CLI in the test's process, its stdout and stderr real files as a child process's pipes
  would be; the target runs in the capture's child process as always. For tests that read what a live capture
  reports: they skip the start-up of a second doctor process (about 0.4 CPU-s a run).
- the `shared_run` fixture (tests/conftest.py): `doctor_here`, once per test session for each distinct command.
- `doctor_in_process(...)`: the offline commands (`rules`, `rule`, `report`, `guards --dump`,
  `check --from-capture`) through typer's CliRunner, without a child process.

Every call is counted: set DOCTOR_TEST_RUN_LOG to a file to keep the log; the summary line at the end of the
session says how many child processes ran and how many requests were answered without one."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from support.paths import REPO

RUN_LOG_ENV = "DOCTOR_TEST_RUN_LOG"


@dataclass
class DoctorRun:
    returncode: int
    stdout: str
    stderr: str
    # the kept --artifacts dir of a shared run that asked for one
    artifacts: Path | None = None

    @property
    def json(self) -> dict:
        return json.loads(self.stdout)


def log_run(how: str, args: tuple[str, ...]) -> None:
    """One line per request for a doctor run: `child`, `here`, `shared` (answered from the session cache) or
    `in-process` (offline, through CliRunner)."""
    log = os.environ.get(RUN_LOG_ENV)
    if log:
        with open(log, "a", encoding="utf-8") as file:
            file.write(f"{how}\t{' '.join(args)}\n")


def run_doctor(*args: str, cwd: Path | None = None, timeout: float = 300, env: dict | None = None) -> DoctorRun:
    """The CLI in a child process of its own (`python -m torchcompile_doctor ARGS`)."""
    log_run("child", args)
    full_env = {**os.environ, **(env or {})}
    full_env.pop("TORCH_LOGS", None)
    process = subprocess.run(
        [sys.executable, "-m", "torchcompile_doctor", *args],
        cwd=cwd or REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=full_env,
    )
    return DoctorRun(process.returncode, process.stdout, process.stderr)


@contextlib.contextmanager
def _output_into_files():
    """fds 1 and 2, and sys.stdout and sys.stderr on them, into two files for the block; yields the list that
    receives their texts at its end. A real fd 2 matters: the doctor hands it to the target for its output."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved_fds, saved_streams = (os.dup(1), os.dup(2)), (sys.stdout, sys.stderr)
    texts: list[str] = []
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        os.dup2(out.fileno(), 1)
        os.dup2(err.fileno(), 2)
        # line-buffered: the doctor's lines and the target's interleave in the order they were written
        sys.stdout, sys.stderr = (open(fd, "w", encoding="utf-8", closefd=False, buffering=1) for fd in (1, 2))
        try:
            yield texts
        finally:
            for stream in (sys.stdout, sys.stderr):
                stream.close()
            sys.stdout, sys.stderr = saved_streams
            for fd, saved in zip((1, 2), saved_fds, strict=True):
                os.dup2(saved, fd)
                os.close(saved)
            for file in (out, err):
                file.seek(0)
                texts.append(file.read().decode("utf-8", errors="replace"))


@contextlib.contextmanager
def _environment(changes: dict[str, str]):
    """os.environ as run_doctor gives its child: with `changes`, without the caller's TORCH_LOGS."""
    saved = dict(os.environ)
    os.environ.pop("TORCH_LOGS", None)
    os.environ.update(changes)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def doctor_here(*args: str, cwd: Path | None = None, timeout: float = 300, env: dict | None = None) -> DoctorRun:
    """`doctor ARGS` with the CLI in this process (from the main thread only); the target still runs in the
    capture's child process. Past `timeout` the doctor gets SIGTERM, as from a cancelled CI job: it stops the
    target and reports what was captured, with exit code 130."""
    from torchcompile_doctor import cli

    assert threading.current_thread() is threading.main_thread(), "doctor_here changes the cwd and fds 1 and 2"
    log_run("here", args)
    argv, code = sys.argv, None
    watchdog = threading.Timer(timeout, os.kill, (os.getpid(), signal.SIGTERM))
    try:
        with contextlib.chdir(cwd or REPO), _environment(env or {}), _output_into_files() as texts:
            sys.argv = ["doctor", *args]
            watchdog.start()
            try:
                cli.main()
            except SystemExit as exit_:
                code = exit_.code
    finally:
        watchdog.cancel()
        sys.argv = argv
    return DoctorRun(code if isinstance(code, int) else 0 if code is None else 1, texts[0], texts[1])


def doctor_in_process(*args: str, cwd: Path | None = None) -> DoctorRun:
    """An offline command (rules, rule, report, guards --dump) through typer's CliRunner, in this process.

    The working directory matters (reports print paths relative to it), so the command runs in `cwd`.
    A bug of ours raises here instead of becoming `doctor: internal error` (the test fails either way).
    """
    from typer.testing import CliRunner

    from torchcompile_doctor.cli import app

    log_run("in-process", args)
    with contextlib.chdir(cwd or REPO):
        result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    return DoctorRun(result.exit_code, result.stdout, result.stderr)
