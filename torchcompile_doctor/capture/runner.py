"""Run the target in a child process under capture; survive whatever it does.

The child gets its own process group (so `--timeout` and Ctrl-C stop it and everything it
spawned), stdin at EOF, and its stdout sent to our stderr: the report on stdout stays clean.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from torchcompile_doctor.capture.target import TargetSpec
from torchcompile_doctor.errors import DoctorError
from torchcompile_doctor.events.sidechannel import FILE_NAME as SIDE_CHANNEL

TRACE_SUBDIR = "trace"
KILL_GRACE_S = 5.0


@dataclass(frozen=True)
class CaptureResult:
    artifacts: Path
    returncode: int | None  # None when the child was killed by us
    signal: int | None  # the signal that ended the child, if any
    timed_out: bool
    interrupted: bool
    wall_s: float


def check_torch_available() -> None:
    if importlib.util.find_spec("torch") is None:
        raise DoctorError(
            f"torch is not installed in {sys.executable}; install it (e.g. `pip install torch`) "
            "to run targets (`doctor report` and `doctor rules` work without it)"
        )


def _stop_group(process: subprocess.Popen) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        try:
            process.wait(timeout=KILL_GRACE_S)
            return
        except subprocess.TimeoutExpired:
            continue


def run_capture(
    spec: TargetSpec,
    artifacts: Path,
    backend: str | None = None,
    timeout_s: float | None = None,
    fresh_inductor_cache: bool = False,
    experiment: dict | None = None,
    measure_guards: bool = False,
    dump_dir: Path | None = None,
) -> CaptureResult:
    check_torch_available()
    trace_dir = artifacts / TRACE_SUBDIR
    trace_dir.mkdir(parents=True, exist_ok=True)
    child_spec = {
        **spec.as_json(),
        "display": spec.display,
        "backend": backend,
        "experiment": experiment,
        "measure_guards": measure_guards,
        "dump_dir": str(dump_dir) if dump_dir else None,
        "side_channel": str(artifacts / SIDE_CHANNEL),
    }
    env = dict(os.environ)
    env["TORCH_TRACE"] = str(trace_dir)
    if fresh_inductor_cache:  # cached graphs log no perf hints: compile everything afresh
        env["TORCHINDUCTOR_CACHE_DIR"] = str(artifacts / "inductor_cache")
    # The child must import this package even when the doctor runs from a source checkout.
    package_root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    command = [sys.executable, "-m", "torchcompile_doctor.capture._bootstrap", json.dumps(child_spec)]
    started = time.monotonic()
    process = subprocess.Popen(
        command,
        cwd=spec.cwd or None,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=sys.stderr.fileno(),
        stderr=sys.stderr.fileno(),
        start_new_session=True,
    )
    timed_out = interrupted = False
    try:
        process.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        timed_out = True
        _stop_group(process)
    except KeyboardInterrupt:
        interrupted = True
        _stop_group(process)
    returncode = process.returncode
    return CaptureResult(
        artifacts=artifacts,
        returncode=None if (timed_out or interrupted) else (returncode if returncode >= 0 else None),
        signal=-returncode if returncode is not None and returncode < 0 and not (timed_out or interrupted) else None,
        timed_out=timed_out,
        interrupted=interrupted,
        wall_s=time.monotonic() - started,
    )
