"""The warm process `doctor fix` forks its plain run and trials from (capture/warm_server.py) runs a program as a
cold capture child does: the same graphs, breaks, recompiles and findings at the same places, the same printed
results, the same steady-state calls, the same end, the same exit status (one program run each way shows all of it);
a child that outlives its time is stopped with its stack, as a cold one is. Live (slow): torch in children, the
program of tests/fix/programs/ that bench/fix_cost.py measures. That a program setting torch's variables is run
again afresh is tests/fix/test_doctor_fix.py's (test_a_program_without_anything_to_fix_says_so)."""

from __future__ import annotations

import contextlib
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from support.paths import TESTS

from torchcompile_doctor.capture.capture_options import CaptureOptions
from torchcompile_doctor.capture.environment_watch import read_changed
from torchcompile_doctor.capture.runner import run_capture, start_warm
from torchcompile_doctor.capture.target import TargetSpec
from torchcompile_doctor.capture_layout import CaptureFolder
from torchcompile_doctor.events.processes import load_processes
from torchcompile_doctor.pipeline import reread

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="trials are forked warm on Linux only"),
]
OPTIONS = CaptureOptions(keep_output=True, fresh_inductor_cache=True, timeout_s=120)


@pytest.fixture(scope="module")
def warm():
    """One warm process for the module's tests, as `doctor fix` forks its plain run and all its trials from one."""
    processes = start_warm()
    assert processes is not None  # on Linux
    with contextlib.closing(processes):
        yield processes


def _script(folder: Path, text: str) -> TargetSpec:
    program = folder / "program.py"
    program.write_text(text)
    return TargetSpec(kind="script", path=str(program), cwd=str(folder))


# A compiled call in a loop: its steady state (the median call that compiled nothing) is what `doctor fix` puts
# beside a trial's. The intra-op threads a fork gets are printed (a fork of a process that had started ATen's pool
# would differ); the calls are then timed on one thread, so that an OpenMP region waiting on a core another test's
# process holds (2 shared cores under xdist) cannot pass for a slower fork.
STEADY = """\
import torch


@torch.compile(backend="eager")
def steady(x):
    for _ in range(8):
        x = torch.tanh(x * 1.01 + 0.5)
    return x


print(torch.get_num_threads())
torch.set_num_threads(1)
torch.manual_seed(0)
x = torch.randn(256, 256)
for _ in range(300):
    y = steady(x)
print(round(float(y.sum()), 2))
"""
FORKED_WITHIN = 3.0  # the factor a forked run's median call may lie from a cold one's (measured: 0.29-0.35 ms both)

# What the program sees of its end: its atexit handlers, then its globals freed (`__del__`, an unclosed file's
# buffer written), as the interpreter's exit does; a thread it left running is waited for first.
ENDING = """\
import atexit
import threading
import time

import torch


class Note:
    def __del__(self):
        print("freed", flush=True)


def late():
    time.sleep(0.5)
    print("thread done", flush=True)


note = Note()
log = open("log.txt", "w")
log.write("written when freed")
atexit.register(lambda: print("atexit", flush=True))
threading.Thread(target=late).start()
print("end", flush=True)
"""

# One program run cold and forked, for the three tests below: the doctor fix case of tests/fix/programs/ that
# bench/fix_cost.py measures (breaks, recompiles and their findings), then STEADY, then ENDING.
COMPARED = (TESTS / "fix" / "programs" / "breaks_and_recompiles.py").read_text() + STEADY + ENDING


@pytest.fixture(scope="module")
def compared(warm, tmp_path_factory) -> dict[str, Path]:
    """COMPARED run cold and forked from the warm process, each in a folder of its own: name -> that folder (its
    capture in `capture/`)."""
    assert warm.ready()
    folders = {}
    for name, processes in (("cold", None), ("warm", warm)):
        where = tmp_path_factory.mktemp(name)
        outcome = run_capture(_script(where, COMPARED), where / "capture", OPTIONS, processes)
        assert outcome.returncode == 0, CaptureFolder(where / "capture").target_errors.read_text()[-2000:]
        folders[name] = where
    return folders


def _what_it_did(folder: Path) -> tuple[object, ...]:
    report = reread(folder).report
    summary = replace(report.summary, compile_time_s=None)  # a timing, not what was compiled
    findings = [(f.code, f.count, f.location.line if f.location else None) for f in report.findings]
    return summary, sorted(findings), report.target_succeeded, CaptureFolder(folder).target_output.read_text()


def test_a_program_forked_warm_compiles_and_prints_what_it_does_cold(compared):
    cold, forked = (_what_it_did(compared[name] / "capture") for name in ("cold", "warm"))
    assert forked == cold
    summary = cold[0]
    assert summary.graph_breaks == 2 and summary.recompiles == 2 and summary.graphs == 8  # what was compared
    assert cold[3].startswith("total 113.0000\n")
    assert read_changed(CaptureFolder(compared["warm"] / "capture").environment_set) == ()


def _steady_call_s(folder: Path) -> float:
    (counted,) = [c for log in load_processes(folder).logs.values() for c in log.call_counts if c.function == "steady"]
    assert counted.calls == 300 and counted.steady_calls > 200 and counted.steady_median_s is not None
    return counted.steady_median_s


def test_a_forked_run_s_compiled_calls_take_what_a_cold_run_s_take(compared):
    ratio = _steady_call_s(compared["warm"] / "capture") / _steady_call_s(compared["cold"] / "capture")
    assert 1 / FORKED_WITHIN < ratio < FORKED_WITHIN  # and the same intra-op threads, printed: the test above


def test_a_forked_child_ends_as_the_interpreter_ends_a_cold_one(compared):
    outputs = [
        (CaptureFolder(compared[name] / "capture").target_output.read_text(), (compared[name] / "log.txt").read_text())
        for name in ("cold", "warm")
    ]
    assert outputs[0][0].endswith("end\nthread done\natexit\nfreed\n") and outputs[0][1] == "written when freed"
    assert outputs[1] == outputs[0]


def test_a_warm_child_ends_with_the_program_s_status_and_is_stopped_with_its_stack(tmp_path, warm):
    exits = _script(tmp_path, "import sys\nimport torch\nprint('bye')\nsys.exit(3)\n")
    stuck = replace(exits, path=str(tmp_path / "stuck.py"))
    (tmp_path / "stuck.py").write_text("import time\nimport torch\n\n\ndef wait():\n    time.sleep(60)\n\n\nwait()\n")
    assert warm.ready()
    ended = run_capture(exits, tmp_path / "exits", OPTIONS, warm)
    stopped = run_capture(stuck, tmp_path / "stuck", replace(OPTIONS, timeout_s=3), warm)
    assert ended.returncode == 3 and CaptureFolder(tmp_path / "exits").target_output.read_text() == "bye\n"
    assert stopped.timed_out and stopped.elapsed_s < 30
    findings = reread(tmp_path / "stuck").report.findings
    assert any(f.location is not None and f.location.function == "wait" for f in findings)  # where it was stopped
