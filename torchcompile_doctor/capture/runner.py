"""Run the target in a child process under capture; survive whatever it does.

The child gets its own process group (so `--timeout` and Ctrl-C stop it and everything it
spawned), stdin at EOF, and its stdout sent to our stderr: the report on stdout stays clean.

With `nproc_per_node`, the child is torchrun (`python -m torch.distributed.run --standalone`) and the
bootstrap is the program of every rank; each rank writes its own TORCH_TRACE file (torch names it by
rank) and its own side channel. torchrun starts each worker in a session of its own, so stopping the
run stops those process groups too.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from torchcompile_doctor.capture.target import TargetSpec
from torchcompile_doctor.errors import DoctorError
from torchcompile_doctor.events.sidechannel import FILE_NAME as SIDE_CHANNEL

BOOTSTRAP = "torchcompile_doctor.capture._bootstrap"

TRACE_SUBDIR = "trace"
KILL_GRACE_S = 5.0


@dataclass(frozen=True)
class CaptureResult:
    returncode: int | None  # None when the child was killed by us
    signal: int | None  # the signal that ended the child, if any
    timed_out: bool
    interrupted: bool


def check_torch_available() -> None:
    if importlib.util.find_spec("torch") is None:
        raise DoctorError(
            f"torch is not installed in {sys.executable}; install it (e.g. `pip install torch`) "
            "to run targets (`doctor report` and `doctor rules` work without it)"
        )


def _descendant_groups(pid: int) -> set[int]:
    """Process groups of `pid`'s descendants (Linux /proc; empty elsewhere): torchrun's workers each lead one."""
    parents: dict[int, list[int]] = {}
    groups: dict[int, int] = {}
    try:
        entries = [e for e in os.listdir("/proc") if e.isdigit()]
    except OSError:
        return set()
    for entry in entries:
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        parents.setdefault(int(fields[1]), []).append(int(entry))
        groups[int(entry)] = int(fields[2])
    found, todo = set(), list(parents.get(pid, []))
    while todo:
        child = todo.pop()
        found.add(groups[child])
        todo += parents.get(child, [])
    return found - {pid}


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def _signal_groups(groups: set[int], sig: int) -> None:
    for group in groups:
        try:
            os.killpg(group, sig)
        except (ProcessLookupError, PermissionError):
            pass


def _stop_group(process: subprocess.Popen) -> None:
    """SIGTERM, then SIGKILL after a grace period, to the child's group and every group it started."""
    groups = {process.pid} | _descendant_groups(process.pid)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        _signal_groups(groups, sig)
        try:
            process.wait(timeout=KILL_GRACE_S)
        except subprocess.TimeoutExpired:
            continue
        if sig == signal.SIGTERM:  # the child is gone; its workers get the same grace, then no more
            deadline = time.monotonic() + KILL_GRACE_S
            while time.monotonic() < deadline and any(_group_alive(g) for g in groups - {process.pid}):
                time.sleep(0.1)
            _signal_groups({g for g in groups - {process.pid} if _group_alive(g)}, signal.SIGKILL)
        return


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def torchrun_command(nproc_per_node: int, program_args: list[str]) -> list[str]:
    """torch's own launcher, one node, a free rendezvous port; the bootstrap module is each rank's program."""
    return [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        "--nnodes",
        "1",
        "--nproc-per-node",
        str(nproc_per_node),
        "-m",
        BOOTSTRAP,
        *program_args,
    ]


def _child_env(trace_dir: Path, inductor_cache: Path | None) -> dict[str, str]:
    env = dict(os.environ)
    env["TORCH_TRACE"] = str(trace_dir)
    if inductor_cache is not None:  # cached graphs log no perf hints: compile everything afresh
        env["TORCHINDUCTOR_CACHE_DIR"] = str(inductor_cache)
    # The child must import this package even when the doctor runs from a source checkout.
    package_root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    return env


def _wait(process: subprocess.Popen, timeout_s: float | None) -> tuple[bool, bool]:
    """Wait for the child; (timed out, interrupted), the child's process groups stopped in either case."""
    timed_out = interrupted = False
    # A CI job being cancelled sends SIGTERM: stop the target and report what was captured, as for Ctrl-C.
    on_main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _interrupt) if on_main_thread else None
    try:
        process.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        timed_out = True
        _stop_group(process)
    except KeyboardInterrupt:
        interrupted = True
        _stop_group(process)
    finally:
        if on_main_thread:
            signal.signal(signal.SIGTERM, previous)
    return timed_out, interrupted


def run_capture(
    spec: TargetSpec,
    artifacts: Path,
    backend: str | None = None,
    timeout_s: float | None = None,
    fresh_inductor_cache: bool = False,
    experiment: dict | None = None,
    measure_guards: bool = False,
    dump_dir: Path | None = None,
    nproc_per_node: int | None = None,
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
        "side_channel_per_rank": nproc_per_node is not None,
    }
    env = _child_env(trace_dir, artifacts / "inductor_cache" if fresh_inductor_cache else None)
    if nproc_per_node is not None:
        command = torchrun_command(nproc_per_node, [json.dumps(child_spec)])
    else:
        command = [sys.executable, "-m", BOOTSTRAP, json.dumps(child_spec)]
    process = subprocess.Popen(
        command,
        cwd=spec.cwd or None,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=sys.stderr.fileno(),
        stderr=sys.stderr.fileno(),
        start_new_session=True,
    )
    timed_out, interrupted = _wait(process, timeout_s)
    returncode = process.returncode
    return CaptureResult(
        returncode=None if (timed_out or interrupted) else (returncode if returncode >= 0 else None),
        signal=-returncode if returncode is not None and returncode < 0 and not (timed_out or interrupted) else None,
        timed_out=timed_out,
        interrupted=interrupted,
    )
