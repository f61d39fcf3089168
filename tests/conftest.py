"""Fixtures and session hooks shared by every test; shared code lives in tests/support/ (see its __init__).

- `shared_run(*args, ...)`: `doctor_here` once per test session for each distinct command, shared across
  xdist workers; `captured_run(text)`: a script's capture kept once per session; `ddp_run`: the DDP sample
  under torchrun.
- The longest tests run first, and the session ends with a line counting the doctor runs it made.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from support import confinement, longest
from support.doctor import RUN_LOG_ENV, DoctorRun, doctor_here, log_run
from support.paths import SAMPLES


def shared_base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory all xdist workers of this session share (each worker's own basetemp sits inside it)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def shared_run(tmp_path_factory):
    """`shared_run(*args, cwd=SAMPLES, keep_artifacts=False, timeout=300)`: `doctor_here` once per session.

    Keyed by the exact command: the arguments, the directory and whether the capture is kept (then it is run
    with `--artifacts DIR` into the cache, or with the option `keep_artifacts` names, e.g. `--dump DIR`, and
    `.artifacts` is that directory). Tests that ask for the same command get the same exit code, stdout and
    stderr; a file lock makes the first asker run it and the others wait.
    Only for tests that read the report: a test about side effects runs its own process.
    """
    from filelock import FileLock  # a torch dependency

    cache = shared_base(tmp_path_factory) / "doctor-runs"
    cache.mkdir(exist_ok=True)

    def get(*args: str, cwd: Path = SAMPLES, keep_artifacts: bool | str = False, timeout: float = 300) -> DoctorRun:
        key = hashlib.sha256(json.dumps([args, str(cwd), keep_artifacts]).encode()).hexdigest()[:20]
        folder, artifacts = cache / key, cache / key / "artifacts"
        record = folder / "run.json"
        with FileLock(str(folder) + ".lock"):
            if record.exists():
                log_run("shared", args)
            else:
                folder.mkdir(exist_ok=True)
                option = keep_artifacts if isinstance(keep_artifacts, str) else "--artifacts"
                extra = (option, str(artifacts)) if keep_artifacts else ()
                run = doctor_here(*args, *extra, cwd=cwd, timeout=timeout)
                record.write_text(json.dumps([run.returncode, run.stdout, run.stderr]), encoding="utf-8")
        returncode, stdout, stderr = json.loads(record.read_text(encoding="utf-8"))
        return DoctorRun(returncode, stdout, stderr, artifacts if keep_artifacts else None)

    return get


@pytest.fixture(scope="session")
def captured_run(shared_run, tmp_path_factory):
    """`captured_run(text)`: TEXT as DIR/s.py, run once per session with `doctor explain --format json
    --artifacts` (shared across xdist workers); returns (DIR, the run), the run's `.artifacts` the kept capture.
    DIR keeps the script as it was captured: the report reads its source lines. A test that writes a baseline
    there names it after itself, or owns the script."""
    from filelock import FileLock  # a torch dependency

    base = shared_base(tmp_path_factory) / "captured-scripts"
    base.mkdir(exist_ok=True)

    def get(text: str) -> tuple[Path, DoctorRun]:
        folder = base / hashlib.sha256(text.encode()).hexdigest()[:12]
        with FileLock(str(folder) + ".lock"):
            if not folder.exists():
                folder.mkdir()
                (folder / "s.py").write_text(text)
        run = shared_run("explain", "s.py", "--format", "json", cwd=folder, keep_artifacts=True)
        assert run.returncode in (0, 3) and run.artifacts is not None, run.stderr[-2000:]
        return folder, run

    return get


@pytest.fixture(scope="session")
def ddp_run(shared_run) -> DoctorRun:
    """sample_models/ddp_rank_divergence.py under torchrun (two ranks), once per session, its capture kept."""
    # --timeout: should a rank hang (e.g. in a collective), the doctor stops every rank and the test fails fast
    args = ("--nproc-per-node", "2", "--format", "json", "--timeout", "240")
    return shared_run("explain", "ddp_rank_divergence.py", *args, keep_artifacts=True)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest tests first (inductor, then the other slow ones; within each, by the seconds support/longest.py
    measured), so that with xdist no worker is left with a long test at the end while the other idles. A module's
    tests of one lane stay together, longest module first: a module-scoped fixture (one live run that several tests
    read) is made once, not again after another module's test. A stable sort: the same order on every worker, as
    xdist needs."""

    def group(item: pytest.Item) -> tuple[int, str]:  # (lane, module)
        lane = 0 if item.get_closest_marker("inductor") else 1 if item.get_closest_marker("slow") else 2
        return lane, item.module.__name__ if item.module else ""

    weights: dict[tuple[int, str], float] = {}
    for item in items:
        weights[group(item)] = weights.get(group(item), 0.0) + longest.seconds(item.name)

    def key(item: pytest.Item) -> tuple[int, float, str, float]:
        lane, module = group(item)
        return lane, -weights[(lane, module)], module, -longest.seconds(item.name)

    items.sort(key=key)


# --- the fast lane starts no process: a test that starts one (the CLI, a capture's target, pip) is marked slow ---

_PROCESS_STARTS = frozenset({"subprocess.Popen", "os.posix_spawn", "os.fork", "os.forkpty", "os.system", "os.exec"})
_started: list[str] = []  # what the running test started (its setup and call), in this process


def _count_process_starts(event: str, args: tuple[object, ...]) -> None:
    if event in _PROCESS_STARTS and not _library_probe():
        _started.append(f"{event} {str(args[1] if event == 'subprocess.Popen' and len(args) > 1 else '')[:80]}")


def _library_probe() -> bool:
    """A start made by `ctypes.util.find_library` (it runs `ldconfig -p`): torch's CUDA build looks its libraries
    up so when a test compiles in-process, which is no process of the test's."""
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_filename.endswith(os.path.join("ctypes", "util.py")):
            return True
        frame = frame.f_back
    return False


sys.addaudithook(_count_process_starts)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item):
    _started.clear()
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    """`make test-fast` (`-m "not slow and not inductor and not browser"`) must stay fast on a loaded machine: a test
    that starts a process and is not marked for a slower lane fails, naming what it started."""
    result = yield
    if _started and not any(item.get_closest_marker(lane) for lane in ("slow", "inductor", "browser")):
        pytest.fail(f"started a process but is not marked slow: {_started[0]}", pytrace=False)
    return result


# --- counting the runs: the controller owns the log, the workers (child processes) inherit its path ---------

_OWN_LOG = pytest.StashKey[str]()
_OWN_TEMP = pytest.StashKey[str]()


def pytest_configure(config: pytest.Config) -> None:
    _confine(config)
    if hasattr(config, "workerinput") or os.environ.get(RUN_LOG_ENV):
        return
    handle, path = tempfile.mkstemp(prefix="doctor-test-runs-", suffix=".log")
    os.close(handle)
    os.environ[RUN_LOG_ENV] = path
    config.stash[_OWN_LOG] = path


# --- reading nothing outside the clone (support/confinement.py): the controller sets it up for the session ---


def _confine(config: pytest.Config) -> None:
    """The controller gives the session a temp folder of its own and the roots it may read, in the environment
    (xdist workers and every child process inherit both); then every process of the session, this one first,
    refuses to read outside them."""
    if not hasattr(config, "workerinput") and not os.environ.get(confinement.ROOTS_ENV):
        temp = os.path.realpath(tempfile.mkdtemp(prefix="doctor-tests-"))
        handle, refusals = tempfile.mkstemp(prefix="refusals-", suffix=".log", dir=temp)
        os.close(handle)
        os.environ["TMPDIR"] = temp
        tempfile.tempdir = temp
        os.environ[confinement.ROOTS_ENV] = os.pathsep.join(confinement.default_roots(temp))
        os.environ[confinement.REFUSALS_ENV] = refusals
        previous = os.environ.get("PYTHONPATH")
        os.environ["PYTHONPATH"] = os.pathsep.join([str(confinement.SITE_DIR), *([previous] if previous else [])])
        config.stash[_OWN_TEMP] = temp
    elif hasattr(config, "workerinput"):
        tempfile.tempdir = os.environ.get("TMPDIR", tempfile.gettempdir())
    confinement.install_from_environment()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A read outside the clone by any process of the session fails the session, even one the code under test
    caught and went on from."""
    refusals = os.environ.get(confinement.REFUSALS_ENV)
    if hasattr(session.config, "workerinput") or not refusals or not os.path.exists(refusals):
        return
    with open(refusals, encoding="utf-8") as log:
        refused = sorted({tuple(line.rstrip("\n").split("\t")[1:4]) for line in log if line.count("\t") >= 3})
    if refused:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(f"the session read outside its clone ({len(refused)}), which fails it:", red=True)
            for event, path, test in refused[:20]:
                reporter.write_line(f"  {event} {path}  ({test or 'outside a test'})", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    log = os.environ.get(RUN_LOG_ENV)
    if hasattr(config, "workerinput") or not log or not os.path.exists(log):
        return
    with open(log, encoding="utf-8") as file:
        lines = [line.split("\t", 1) for line in file.read().splitlines() if "\t" in line]
    how = Counter(kind for kind, _ in lines)
    captures = Counter(kind for kind, args in lines if args.split(" ", 1)[0] in ("explain", "check", "guards"))
    terminalreporter.write_line(
        f"doctor runs: {how['child']} child processes ({captures['child']} explain/check/guards), "
        f"{how['here']} in the test's process with the target in its child ({captures['here']} explain/check/"
        f"guards), {how['shared']} answered from the session cache ({captures['shared']} explain/check/guards), "
        f"{how['in-process']} offline in-process"
    )


def pytest_unconfigure(config: pytest.Config) -> None:
    temp = config.stash.get(_OWN_TEMP, None)
    if temp:
        shutil.rmtree(temp, ignore_errors=True)
    path = config.stash.get(_OWN_LOG, None)
    if path:
        os.environ.pop(RUN_LOG_ENV, None)
        with contextlib.suppress(OSError):
            os.remove(path)
