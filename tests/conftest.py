"""Shared helpers: run the real CLI as a user would, once per distinct command and test session.

Four ways a test gets a report, from the most to the least expensive:
- `run_doctor(...)`: the CLI in a child process of its own. For tests about the process itself or its side
  effects (files written, temp dirs, signals, timeouts, a fake torch on PYTHONPATH, concurrency).
- `doctor_here(...)`: the CLI in the test's process, its stdout and stderr real files as a child process's pipes
  would be; the target runs in the capture's child process as always. For tests that read what a capture
  reports: they skip the start-up of a second doctor process (about 0.4 CPU-s a run).
- the `shared_run` fixture: `doctor_here`, run once per test session for each distinct command (arguments,
  directory, whether the capture is kept) and shared between the tests, also across xdist workers.
- `doctor_in_process(...)`: the offline commands (`rules`, `rule`, `report`, `guards --dump`,
  `check --from-capture`) through typer's CliRunner, without a child process.

Every call is counted: set DOCTOR_TEST_RUN_LOG to a file to keep the log; the summary line at the end of the
session says how many child processes ran and how many requests were answered without one.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "sample_models"
CORPUS = REPO.parent / "shared" / "corpus-dev"
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


def _log_run(how: str, args: tuple[str, ...]) -> None:
    """One line per request for a doctor run: `child`, `here`, `shared` (answered from the session cache) or
    `in-process` (offline, through CliRunner)."""
    log = os.environ.get(RUN_LOG_ENV)
    if log:
        with open(log, "a", encoding="utf-8") as file:
            file.write(f"{how}\t{' '.join(args)}\n")


def run_doctor(*args: str, cwd: Path | None = None, timeout: float = 300, env: dict | None = None) -> DoctorRun:
    """The CLI in a child process of its own (`python -m torchcompile_doctor ARGS`)."""
    _log_run("child", args)
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
    _log_run("here", args)
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

    _log_run("in-process", args)
    with contextlib.chdir(cwd or REPO):
        result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    return DoctorRun(result.exit_code, result.stdout, result.stderr)


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
                _log_run("shared", args)
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
def captured(captured_run):
    """`captured(text)`: as `captured_run`, returning (DIR, the kept capture)."""

    def get(text: str) -> tuple[Path, Path]:
        folder, run = captured_run(text)
        assert run.artifacts is not None
        return folder, run.artifacts

    return get


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest tests first (inductor, then the other slow ones), so that with xdist no worker is left with a
    long test at the end while the other idles. A stable sort: the same order on every worker, as xdist needs."""
    items.sort(
        key=lambda item: 0 if item.get_closest_marker("inductor") else 1 if item.get_closest_marker("slow") else 2
    )


# --- counting the runs: the controller owns the log, the workers (child processes) inherit its path ---------

_OWN_LOG = pytest.StashKey[str]()


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput") or os.environ.get(RUN_LOG_ENV):
        return
    handle, path = tempfile.mkstemp(prefix="doctor-test-runs-", suffix=".log")
    os.close(handle)
    os.environ[RUN_LOG_ENV] = path
    config.stash[_OWN_LOG] = path


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
    path = config.stash.get(_OWN_LOG, None)
    if path:
        os.environ.pop(RUN_LOG_ENV, None)
        with contextlib.suppress(OSError):
            os.remove(path)


def matches_file(found: str, expected: str) -> bool:
    return found.replace(os.sep, "/").endswith("/" + expected)


def find_findings(findings, kinds, file, line):
    return [
        f
        for f in findings
        if f["kind"] in kinds and matches_file(f["location"]["file"], file) and f["location"]["line"] == line
    ]


def _category(finding: dict, convention: str | None) -> str:
    """The finding's category as the ground truth names it. shared/corpus-dev's README fixes an older
    convention, from before breaks had an `origin`: a logging call inside a library is third_party_library,
    and deliberate torch.optim breaks and data-dependent output shapes are other."""
    category = finding["category"]
    if convention != "corpus":
        return category
    if category == "print_or_logging" and finding["origin"] == "third_party":
        return "third_party_library"
    return "other" if category in ("by_design", "data_dependent_operator") else category


def check_against_ground_truth(report: dict, expected: dict) -> None:
    """Assert a JSON report finds exactly the ground truth's breaks, recompiles, limits and failures.

    `expected` uses sample_models/expected.yaml's field names (tests/test_corpus_dev.py maps the corpus to them).
    """
    findings = report["findings"]
    summary = report["summary"]
    # graph breaks: every unique break, at the right place, with id, category, count and call sites
    breaks = [f for f in findings if f["kind"] in ("graph_break", "frame_skipped")]
    assert len(breaks) == len(expected["graph_breaks"]), [(b["location"], b["gb_type"]) for b in breaks]
    assert summary["graph_breaks"] == len(expected["graph_breaks"])
    for gb in expected["graph_breaks"]:
        kind = "frame_skipped" if gb.get("frame_skipped") else "graph_break"
        found = find_findings(findings, (kind,), gb["file"], gb["line"])
        assert len(found) == 1, (gb, [(b["kind"], b["location"]) for b in breaks])
        finding = found[0]
        assert finding["gb_id"] == gb["gb_id"]
        assert finding["gb_type"] == gb["gb_type"]
        assert _category(finding, gb.get("convention")) == gb["category"]
        assert finding["count"] == gb["occurrences"]
        if "call_sites" in gb:
            assert finding["call_sites"] == gb["call_sites"]
        if gb.get("in_library_code"):
            uf = finding["user_frame"]
            assert uf is not None and f"{os.path.basename(uf['file'])}:{uf['line']}" == gb["user_frame"]
        assert "torch_dynamo_resume_in" not in finding["location"]["function"]
        assert finding["fix"]["summary"]

    # recompiles: per function, how many times, classified
    recompiles = [f for f in findings if f["kind"] == "recompile"]
    assert len(recompiles) == len(expected["recompiles"])
    assert summary["recompiles"] == sum(r["count"] for r in expected["recompiles"])
    for rc in expected["recompiles"]:
        found = find_findings(findings, ("recompile",), rc["file"], rc["line"])
        assert len(found) == 1, (rc, [r["location"] for r in recompiles])
        assert found[0]["reason_class"] == rc["reason_class"]
        assert found[0]["count"] == rc["count"]
        assert "torch_dynamo_resume_in" not in found[0]["location"]["function"]

    limits = [f for f in findings if f["kind"] == "recompile_limit"]
    assert len(limits) == (1 if expected["recompile_limit_hit"] else 0)
    assert summary["recompile_limit_hits"] == len(limits)
    if limits:
        assert limits[0]["severity"] == "critical"
        assert matches_file(limits[0]["location"]["file"], expected["recompile_limit"]["file"])
        assert limits[0]["location"]["line"] == expected["recompile_limit"]["line"]

    failures = [f for f in findings if f["kind"] == "compile_failure"]
    assert summary["compile_failures"] == expected["compile_failures"]
    for detail in expected.get("compile_failure_details", []):
        found = find_findings(findings, ("compile_failure",), detail["file"], detail["line"])
        assert len(found) == 1, failures
        if detail["gb_id"]:
            assert found[0]["gb_id"] == detail["gb_id"]
