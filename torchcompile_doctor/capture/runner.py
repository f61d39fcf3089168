"""Run the target in a child process under capture; survive whatever it does.

The child gets its own process group (so `--timeout` and Ctrl-C stop it and everything it
spawned), stdin at EOF, and its stdout sent to our stderr: the report on stdout stays clean.

With `nproc_per_node`, the child is torchrun (`python -m torch.distributed.run --standalone`) and the
bootstrap is the program of every rank; each rank writes its own TORCH_TRACE file (torch names it by
rank) and its own side channel. torchrun starts each worker in a session of its own, so stopping the
run stops those process groups too.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Protocol

from torchcompile_doctor.capture.capture_options import CaptureOptions
from torchcompile_doctor.capture.child_spec import ChildSpec, write_spec
from torchcompile_doctor.capture.stuck_stack import STACK_SIGNAL, main_thread_stack
from torchcompile_doctor.capture.target import TargetSpec
from torchcompile_doctor.capture.warm import WarmProcesses
from torchcompile_doctor.capture.warm_server import WARM_ARGUMENT
from torchcompile_doctor.capture_layout import CaptureFolder
from torchcompile_doctor.errors import DoctorError
from torchcompile_doctor.events.model import RunOutcome
from torchcompile_doctor.events.sidechannel import EventName, SideChannel

ENTRY = str(Path(__file__).resolve().with_name("_entry.py"))  # run by path: see _entry.py
STACK_WAIT_S = 2.0
KILL_GRACE_S = 5.0


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


class Child(Protocol):
    """A capture child as the runner waits for it: a subprocess.Popen, or one the warm process forked."""

    @property
    def pid(self) -> int: ...

    @property
    def returncode(self) -> int | None: ...

    def poll(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> int: ...


def start_warm() -> WarmProcesses | None:
    """The warm process `doctor fix` forks its trials from (capture/warm_server.py), started now; None off Linux
    (macOS's system libraries do not survive a fork after torch loaded them; Windows does not fork)."""
    if not sys.platform.startswith("linux"):
        return None
    return WarmProcesses([sys.executable, ENTRY, WARM_ARGUMENT])


class _Stopped(KeyboardInterrupt):
    """SIGINT or SIGTERM reached the doctor while it waited on the target: which one (the report names it)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise _Stopped(signum)


def _signal_groups(groups: set[int], sig: int) -> None:
    for group in groups:
        try:
            os.killpg(group, sig)
        except (ProcessLookupError, PermissionError):
            pass


def _stop_group(process: Child) -> None:
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
        ENTRY,
        *program_args,
    ]


def _child_env(owned: dict[str, str]) -> dict[str, str]:
    """The user's environment with the capture's own variables set; PYTHONPATH stays the user's (the
    entry file loads the doctor's package by its location)."""
    return {**os.environ, **owned}


def _overridden(owned: dict[str, str]) -> dict[str, str]:
    """The user's own values of the variables the capture sets (the report says they were not used)."""
    return {name: os.environ[name] for name, ours in owned.items() if os.environ.get(name, ours) != ours}


def _dump_stack(process: Child, stack_file: Path | None) -> None:
    """Ask the child for its stack (stuck_stack.py) and give it a moment to write it."""
    if stack_file is None or process.poll() is not None:
        return
    size = stack_file.stat().st_size if stack_file.exists() else 0
    try:
        os.kill(process.pid, STACK_SIGNAL)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + STACK_WAIT_S
    while time.monotonic() < deadline:  # faulthandler writes in one go, from the signal handler
        time.sleep(0.05)
        if stack_file.exists() and stack_file.stat().st_size > size and process.poll() is None:
            time.sleep(0.05)
            return


def _wait(process: Child, timeout_s: float | None, stack_file: Path | None) -> tuple[bool, int | None]:
    """Wait for the child; (timed out, the signal that stopped the doctor), the child's process groups stopped in
    either case."""
    timed_out, stopped_by = False, None
    # A CI job being cancelled sends SIGTERM: stop the target and report what was captured, as for Ctrl-C.
    # SIGINT is handled here too: a process started with SIGINT ignored (by a job runner, a test worker)
    # would otherwise never see a KeyboardInterrupt, and `kill -INT` would leave it waiting on the target.
    on_main_thread = threading.current_thread() is threading.main_thread()
    stops = (signal.SIGTERM, signal.SIGINT) if on_main_thread else ()
    previous = {sig: signal.signal(sig, _interrupt) for sig in stops}
    try:
        process.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        timed_out = True
        _dump_stack(process, stack_file)
        _stop_group(process)
    except KeyboardInterrupt as stop:
        stopped_by = stop.signum if isinstance(stop, _Stopped) else int(signal.SIGINT)
        _stop_group(process)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return timed_out, stopped_by


def _stuck_stack(stack_file: Path | None) -> list[dict[str, object]]:
    """After a timeout: the main thread's stack where the target was stopped (empty when it was not dumped)."""
    if stack_file is None:
        return []
    try:
        return main_thread_stack(stack_file.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return []


def _record_end(artifacts: Path, outcome: RunOutcome, stack_file: Path | None) -> None:
    """The parent's word on a run that did not end by itself (stopped by the --timeout, Ctrl-C, SIGTERM or a
    killing signal; crashed with a signal), as the target's last exit record: a re-read of the kept capture
    (`doctor report`, `check --from-capture`) then says how it ended, as the live run did. After a timeout, with
    the stack where the target was stopped."""
    how = outcome.how_it_died
    if how is None:
        return
    stack = _stuck_stack(stack_file) if outcome.timed_out else []  # the finding is placed at its last user frame
    status = "timeout" if outcome.timed_out else "interrupted" if outcome.interrupted else "signal"
    code = -outcome.signal if outcome.signal is not None else 1
    channel = SideChannel(str(CaptureFolder(artifacts).side_channel))
    channel.write(EventName.TARGET_EXIT, status=status, exit_code=code, message=how, stack=stack)
    channel.close()


def run_capture(
    target: TargetSpec, artifacts: Path, options: CaptureOptions, warm: WarmProcesses | None = None
) -> RunOutcome:
    """Run the target under capture into `artifacts`. `warm`: fork the child from the warm process (one process,
    its output kept) instead of starting a cold one."""
    check_torch_available()
    folder = CaptureFolder(artifacts)
    folder.trace_dir.mkdir(parents=True, exist_ok=True)
    owned = {"TORCH_TRACE": str(folder.trace_dir)}
    if options.fresh_inductor_cache:  # cached graphs log no perf hints: compile everything afresh
        owned["TORCHINDUCTOR_CACHE_DIR"] = str(folder.fresh_inductor_cache)
    timeout_s, nproc_per_node = options.timeout_s, options.nproc_per_node
    # torchrun's ranks are stopped by torchrun; only a single target process is asked for its stack
    stack_file = folder.stack_file if nproc_per_node is None and timeout_s is not None else None
    spec = _child_spec(target, folder, owned, options, stack_file)
    started = time.monotonic()
    if warm is not None and nproc_per_node is None and options.keep_output:
        process: Child = warm.start(
            write_spec(spec), _child_env(owned), target.cwd or None, folder.target_output, folder.target_errors
        )
        timed_out, stopped_by = _wait(process, timeout_s, stack_file)
    else:
        timed_out, stopped_by, process = _run_cold(spec, target.cwd or None, _child_env(owned), folder, options)
    elapsed_s = time.monotonic() - started
    outcome = _outcome(process.returncode, timed_out, stopped_by, timeout_s, elapsed_s)
    if nproc_per_node is None:  # torchrun's ranks keep their own side channels, and it reports each rank's end
        _record_end(artifacts, outcome, stack_file)
    return outcome


def _run_cold(
    spec: ChildSpec, cwd: str | None, env: dict[str, str], folder: CaptureFolder, options: CaptureOptions
) -> tuple[bool, int | None, Child]:
    """A child started afresh (`python _entry.py SPEC`, or torchrun), waited for."""
    if options.nproc_per_node is not None:
        command = torchrun_command(options.nproc_per_node, [write_spec(spec)])
    else:
        command = [sys.executable, ENTRY, write_spec(spec)]
    with contextlib.ExitStack() as stack:
        stdout = stack.enter_context(folder.target_output.open("wb")) if options.keep_output else None
        stderr = stack.enter_context(folder.target_errors.open("wb")) if options.keep_output else None
        process = subprocess.Popen(
            command,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=stdout.fileno() if stdout is not None else sys.stderr.fileno(),
            stderr=stderr.fileno() if stderr is not None else sys.stderr.fileno(),
            start_new_session=True,
        )
        stack_file = Path(spec.stack_file) if spec.stack_file else None
        timed_out, stopped_by = _wait(process, options.timeout_s, stack_file)
    return timed_out, stopped_by, process


def _child_spec(
    target: TargetSpec, folder: CaptureFolder, owned: dict[str, str], options: CaptureOptions, stack_file: Path | None
) -> ChildSpec:
    """What the child is told: the target, where the capture goes, and what it runs with."""
    return ChildSpec(
        target=target,
        display=target.display,
        side_channel=str(folder.side_channel),
        entry=ENTRY,
        trace_dir=owned["TORCH_TRACE"],
        inductor_cache=owned.get("TORCHINDUCTOR_CACHE_DIR"),
        overridden_env=_overridden(owned),
        backend=options.backend,
        experiment=options.experiment,
        measure_guards=options.measure_guards,
        dump_dir=str(options.dump_dir) if options.dump_dir else None,
        side_channel_per_rank=options.nproc_per_node is not None,
        stack_file=str(stack_file) if stack_file else None,
    )


def _outcome(
    returncode: int | None, timed_out: bool, stopped_by: int | None, timeout_s: float | None, elapsed_s: float
) -> RunOutcome:
    """How the target ended: its exit code or signal, unless the doctor stopped it."""
    stopped = timed_out or stopped_by is not None
    return RunOutcome(
        returncode=None if stopped or returncode is None else (returncode if returncode >= 0 else None),
        signal=-returncode if returncode is not None and returncode < 0 and not stopped else None,
        timed_out=timed_out,
        interrupted=stopped_by is not None,
        timeout_s=timeout_s,
        stopped_by=stopped_by,
        elapsed_s=round(elapsed_s, 1),
    )


@contextlib.contextmanager
def capture_folder(keep: Path | None) -> Iterator[Path]:
    """The folder a capture goes into: `keep` (created when missing), or a temp dir removed afterwards."""
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        yield keep
        return
    workdir = Path(tempfile.mkdtemp(prefix="torchcompile-doctor-"))
    try:
        yield workdir
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
