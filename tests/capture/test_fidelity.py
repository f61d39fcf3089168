"""The program under the doctor is the program the user runs: each script here runs plainly and under the
doctor, and what it prints, its exit code and the files it writes must be the same (the doctor sends the
target's stdout to its own stderr, so the plain stdout is looked for there, line by line, in order).

- settings made before `import torch` (environment variables torch and Dynamo read at import) take effect;
- the module search path is the user's: a local checkout on PYTHONPATH wins over an installed copy that lies
  beside the doctor's own package, and PYTHONPATH is passed on unchanged;
- processes the script starts: multiprocessing spawn children are captured (their backend is the one asked
  for), a break traced in two processes is counted once, and a process started otherwise is named as outside
  the capture with no backend claimed for it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from support.captures import SAMPLE_CAPTURES
from support.doctor import doctor_here, run_doctor
from support.paths import DATA, REPO, SAMPLES

from torchcompile_doctor.torch_releases import installed_torch_version, release_of

# A script sets torch's settings at its top, before `import torch`, and records what the program saw.
ENV_BEFORE_IMPORT = """\
print("globals:", sorted((name, type(value).__name__) for name, value in globals().items()))  # as `python FILE`
import atexit
import os
import sys

os.environ["TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS"] = "1"  # read when torch._dynamo.config is imported
os.environ["OMP_NUM_THREADS"] = "1"  # read when torch is imported
os.environ["TORCH_TRACE"] = "mine"  # cannot be honoured: the capture is the trace (the report says so)

import shadowpkg  # noqa: E402
import torch  # noqa: E402


@torch.compile(backend="eager")
def scaled(x):
    return x / x.abs().max().item()  # no graph break when capture_scalar_outputs is on


for n in (4, 4, 8):
    scaled(torch.ones(n))
print("capture_scalar_outputs =", torch._dynamo.config.capture_scalar_outputs, "threads =", torch.get_num_threads())
print("shadowpkg from", shadowpkg.WHERE)
print("sys.path =", sys.path)
print("PYTHONPATH =", os.environ.get("PYTHONPATH"))
with open("written.txt", "w") as out:
    out.write(f"argv {sys.argv[1:]}\\n")


class Note:  # leaves a file when it is freed
    def __init__(self, name):
        self.name = name

    def __del__(self, open=open):
        open(f"freed-{self.name}.txt", "w").close()


kept = Note("at-exit")  # the program's own object, freed at exit
dropped = Note("in-a-cycle")
dropped.itself = dropped  # garbage only a collection frees
del dropped
atexit.register(lambda: open("atexit.txt", "w").close())
sys.exit(3)
"""


def _lines_in_order(wanted: str, found: str) -> bool:
    lines = iter(found.splitlines())
    return all(any(line == have for have in lines) for line in wanted.splitlines())


def _plain(script: str, cwd: Path, env: dict | None = None, *args: str) -> subprocess.CompletedProcess:
    full_env = {name: value for name, value in os.environ.items() if name != "TORCH_LOGS"}  # unless `env` sets it
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, script, *args], cwd=cwd, env=full_env, capture_output=True, text=True, timeout=300
    )


@pytest.fixture(scope="module")
def env_case(tmp_path_factory):
    """The env-before-import script with a local checkout of `shadowpkg` on the user's PYTHONPATH and an
    installed copy in the directory the doctor's package is imported from (as site-packages holds both)."""
    base = tmp_path_factory.mktemp("fidelity")
    site, local = base / "site", base / "local"
    shutil.copytree(REPO / "torchcompile_doctor", site / "torchcompile_doctor", ignore=shutil.ignore_patterns("*.pyc"))
    for where, name in ((site, "INSTALLED"), (local, "LOCAL-CHECKOUT")):
        (where / "shadowpkg").mkdir(parents=True)
        (where / "shadowpkg" / "__init__.py").write_text(f"WHERE = {name!r}\n")
    env = {"PYTHONPATH": f"{local}{os.pathsep}{site}", "TORCH_TRACE": "env-trace"}
    runs = {}
    for how in ("plain", "doctor"):
        work = base / how
        work.mkdir()
        (work / "settings.py").write_text(ENV_BEFORE_IMPORT)
        if how == "plain":
            runs[how] = _plain("settings.py", work, env, "--flag")
        else:
            runs[how] = run_doctor("explain", "settings.py", "--format", "json", "--", "--flag", cwd=work, env=env)
        runs[how + "_dir"] = work
    return runs


@pytest.mark.slow
def test_settings_made_before_import_torch_take_effect(env_case):
    plain, doctor = env_case["plain"], env_case["doctor"]
    assert "capture_scalar_outputs = True threads = 1" in plain.stdout
    plain_out = plain.stdout.replace(str(env_case["plain_dir"]), "DIR")
    assert _lines_in_order(plain_out, doctor.stderr.replace(str(env_case["doctor_dir"]), "DIR")), doctor.stderr[-3000:]
    report = doctor.json
    assert plain.returncode == report["target_exit_code"] == 3
    assert report["summary"]["graph_breaks"] == 0 and report["summary"]["recompiles"] == 1
    assert not any(f["code"] == "TCD104" for f in report["findings"])  # no phantom `.item()` break
    for how in ("plain", "doctor"):
        assert (env_case[how + "_dir"] / "written.txt").read_text() == "argv ['--flag']\n"


@pytest.mark.slow
def test_what_the_program_does_at_exit_happens_as_in_a_plain_run(env_case):
    """Its atexit handlers run, and its objects are freed (their `__del__` runs), also those in reference cycles:
    the capture freezes the heap only after one last collection (capture/_bootstrap.py)."""
    for how in ("plain", "doctor"):
        left = sorted(path.name for path in env_case[how + "_dir"].glob("*.txt"))
        assert left == ["atexit.txt", "freed-at-exit.txt", "freed-in-a-cycle.txt", "written.txt"], (how, left)


@pytest.mark.slow
def test_the_users_module_search_path_is_kept(env_case):
    """A local checkout on PYTHONPATH shadows the installed copy under the doctor as in a plain run."""
    assert "shadowpkg from LOCAL-CHECKOUT" in env_case["plain"].stdout
    assert "shadowpkg from LOCAL-CHECKOUT" in env_case["doctor"].stderr
    # sys.path and PYTHONPATH line for line as in the plain run (checked in the test above, named here)
    plain_path = next(line for line in env_case["plain"].stdout.splitlines() if line.startswith("sys.path ="))
    doctor_path = next(line for line in env_case["doctor"].stderr.splitlines() if line.startswith("sys.path ="))
    assert plain_path.replace(str(env_case["plain_dir"]), "DIR") == doctor_path.replace(
        str(env_case["doctor_dir"]), "DIR"
    )


@pytest.mark.slow
def test_a_torch_trace_of_the_users_is_named_as_not_used(env_case):
    """TORCH_TRACE cannot be the user's (the capture is the trace): the report says so instead of ignoring it."""
    notes = env_case["doctor"].json["notes"]
    assert any(n.startswith("TORCH_TRACE=mine set by the program was not used") for n in notes), notes
    assert any(n.startswith("TORCH_TRACE=env-trace set by your environment was not used") for n in notes), notes
    assert (env_case["plain_dir"] / "mine").is_dir() and not (env_case["doctor_dir"] / "mine").exists()


SPAWNING = """\
import subprocess
import sys

import torch
import torch.multiprocessing as mp


@torch.compile(backend="aot_eager")
def at_import(x):
    print("traced at import")  # a graph break in every process that imports this file
    return x + 1


at_import(torch.ones(2))


def worker(rank):
    @torch.compile(backend="aot_eager")
    def step(x):
        if x.sum() > 0:  # a graph break in the spawned worker only
            return x * 2
        return x

    step(torch.ones(3))
    print(f"worker {rank} done")


if __name__ == "__main__":
    mp.spawn(worker, nprocs=1)
    child = "import torch; torch.compile(lambda x: x.sum().item() + 1, backend='aot_eager')(torch.ones(2))"
    subprocess.run([sys.executable, "-c", child], check=True)  # not a multiprocessing child
    print("all done")
"""


@pytest.mark.slow
def test_processes_the_script_starts(tmp_path):
    (tmp_path / "spawning.py").write_text(SPAWNING)
    run = run_doctor("explain", "spawning.py", "--backend", "eager", "--format", "json", cwd=tmp_path)
    # what a plain run prints (not run here, to keep the suite quick), in whatever order the processes flush
    printed = run.stderr.splitlines()
    for line, times in (("traced at import", 2), ("worker 0 done", 1), ("all done", 1)):
        assert printed.count(line) == times, (line, run.stderr[-3000:])
    assert run.json["target_exit_code"] == 0
    report = run.json
    # the spawned worker ran under the capture: its break was found, and it used the backend the doctor set
    breaks = {f["location"]["line"]: f for f in report["findings"] if f["kind"] == "graph_break"}
    assert SPAWNING.splitlines()[19].strip() == "if x.sum() > 0:  # a graph break in the spawned worker only"
    assert 20 in breaks and 10 in breaks, list(breaks)
    # the break traced in the script and again in the worker (which imports the script) is one break, once each
    assert breaks[10]["count"] == 1 and report["summary"]["graph_break_records"] <= 2
    assert not any(f["kind"] == "rank_divergence" for f in report["findings"])  # processes, not ranks
    # the header claims the override only for the processes it controlled
    assert report["backend"] == "eager (override of aot_eager) / unknown"
    notes = " ".join(report["notes"])
    assert "processes compiled" in notes and "(outside the capture)" in notes
    assert "--backend eager did not apply to it" in notes


# the samples' plain runs on the pinned torch (tests/data/samples/README.md says how): what the program prints without
# the doctor is torch's answer alone, recorded for `make test` and run live in the lanes of other torches
PLAIN_RECORDED_ON = "2.13"
ON_ANOTHER_TORCH = release_of(installed_torch_version()) != PLAIN_RECORDED_ON


@pytest.mark.slow
@pytest.mark.skipif(ON_ANOTHER_TORCH, reason=f"the plain run is recorded on torch {PLAIN_RECORDED_ON}: run live here")
@pytest.mark.parametrize("script", ["item_metric.py"])
def test_samples_behave_as_in_a_plain_run(script, shared_run):
    """The red-team method kept in the suite: a sample's output and exit code, plainly (recorded) and under the
    doctor (the session's shared capture of the sample, tests/capture/test_recapture.py)."""
    plain = (SAMPLE_CAPTURES / script.replace(".py", ".stdout.txt")).read_text(encoding="utf-8")
    run = shared_run("explain", script, "--format", "json", keep_artifacts=True)
    assert plain and _lines_in_order(plain, run.stderr), textwrap.shorten(run.stderr, 3000)
    assert run.json["target_exit_code"] == 0  # as the plain run's (a run is recorded only when it ends well)


@pytest.mark.slow
@pytest.mark.torch_rerun
@pytest.mark.parametrize("script", ["item_metric.py"])
def test_samples_behave_as_in_a_live_plain_run(script, shared_run):
    plain = _plain(script, SAMPLES)
    run = shared_run("explain", script, "--format", "json", keep_artifacts=True)
    assert plain.stdout and _lines_in_order(plain.stdout, run.stderr), textwrap.shorten(run.stderr, 3000)
    assert run.json["target_exit_code"] == plain.returncode
    if not ON_ANOTHER_TORCH:  # the recording is this torch's answer
        assert plain.stdout == (SAMPLE_CAPTURES / script.replace(".py", ".stdout.txt")).read_text(encoding="utf-8")


def test_output_to_a_pipe_is_not_wrapped():
    """Into a file, a pipe or `less` the report is not hard-wrapped (at a terminal it wraps at its width)."""
    from support.doctor import doctor_in_process

    run = doctor_in_process("report", str(DATA / "captures" / "helper_two_callsites"))
    summary = next(line for line in run.stdout.splitlines() if " graphs · " in line)
    assert "compile failures" in summary and "· torch " in summary, summary  # one line, not cut at 110 columns


def test_the_timeout_stack_is_read_from_the_main_thread():
    from torchcompile_doctor.capture.stuck_stack import main_thread_stack

    dump = (
        "main thread 0x00007f0000000001\n"
        "Thread 0x00007f0000000002 (most recent call first):\n"
        '  File "/x/worker.py", line 3 in loop\n\n'
        "Current thread 0x00007f0000000001 (most recent call first):\n"
        '  File "/x/train.py", line 12 in wait\n'
        '  File "/x/train.py", line 20 in <module>\n'
    )
    assert main_thread_stack(dump) == [
        {"file": "/x/train.py", "line": 20, "function": "<module>"},
        {"file": "/x/train.py", "line": 12, "function": "wait"},
    ]
    assert main_thread_stack("not a dump") == []


def test_a_counted_compiled_module_pickles_as_torch_made_it(tmp_path):
    """The capture counts a compiled module's calls through the `forward` torch gave it, keeping torch's own
    class, and notes the user's line that called it (past nn.Module.__call__), with the call's columns;
    `torch.save(compiled)` works as in a plain run and loads back torch's OptimizedModule."""
    import inspect
    import io

    import torch

    from torchcompile_doctor.capture.call_counts import CallCounts
    from torchcompile_doctor.capture.hooks import _recording_module_calls
    from torchcompile_doctor.events.model import CallSite, LogHealth
    from torchcompile_doctor.events.sidechannel import SideChannel, read_side_channel

    compiled = torch.compile(torch.nn.Linear(4, 4), backend="eager")
    plain_class, torch_forward = type(compiled), compiled.forward
    counts = CallCounts()
    channel = SideChannel(str(tmp_path / "events.jsonl"))
    _recording_module_calls(compiled, channel, counts, None, None)
    assert type(compiled) is plain_class and compiled.forward is not torch_forward
    calling_line = inspect.currentframe().f_lineno + 1
    compiled(torch.ones(2, 4))
    channel.close()
    assert [calls for calls, _ in counts._counts.values()] == [1]
    with (tmp_path / "events.jsonl").open("rb") as stream:
        (site,) = [e for e in read_side_channel(stream, LogHealth()) if isinstance(e, CallSite)]
    assert (site.file, site.line) == (__file__, calling_line)
    assert (site.column, site.end_column) == (4, len("    compiled(torch.ones(2, 4))"))
    buffer = io.BytesIO()
    torch.save(compiled, buffer)
    buffer.seek(0)
    assert type(torch.load(buffer, weights_only=False)) is plain_class


# a compiled module called from inside a compiled function; its plain run under TORCH_LOGS=graph_breaks recorded
# beside it on the pinned torch (tests/data/fidelity/README.md)
NESTED = DATA / "fidelity" / "nested.py"


def _nested_under_the_doctor(tmp_path: Path, plain_stdout: str) -> None:
    (tmp_path / "nested.py").write_text(NESTED.read_text())
    run = doctor_here("explain", "nested.py", "--format", "json", cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    assert _lines_in_order(plain_stdout, run.stderr)
    summary = run.json["summary"]
    assert (summary["graph_breaks"], summary["graphs"], summary["recompiles"]) == (0, 1, 0)
    assert run.json["findings"] == []
    [frame] = run.json["compile_time"]["frames"]
    assert (frame["function"], frame["calls"]) == ("act", 3)


@pytest.mark.slow
@pytest.mark.skipif(ON_ANOTHER_TORCH, reason=f"the plain run is recorded on torch {PLAIN_RECORDED_ON}: run live here")
def test_the_capture_never_changes_what_dynamo_compiles(tmp_path):
    """A compiled module called from inside another compiled function: Dynamo inlines it, in a plain run (recorded)
    as under the doctor, whose call counting it must never trace (no break, no graph of the doctor's making)."""
    stdout, stderr = (
        NESTED.with_suffix(suffix).read_text(encoding="utf-8") for suffix in (".stdout.txt", ".stderr.txt")
    )
    assert "Graph break" not in stderr and stdout
    _nested_under_the_doctor(tmp_path, stdout)


@pytest.mark.slow
@pytest.mark.torch_rerun
def test_the_capture_never_changes_what_dynamo_compiles_in_a_live_plain_run(tmp_path):
    plain = _plain(str(NESTED), tmp_path, {"TORCH_LOGS": "graph_breaks"})
    assert "Graph break" not in plain.stderr and plain.returncode == 0
    _nested_under_the_doctor(tmp_path, plain.stdout)
