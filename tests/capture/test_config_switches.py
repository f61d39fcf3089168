"""What the fix texts of TCD104/105/108 (and TCD216, TCD403 built on them) say about
`capture_scalar_outputs` / `capture_dynamic_output_shape_ops`, checked on a real program: the switch can crash
one (`torch.arange` on bounds read from a tensor), which runs plainly without it. This measures torch alone: on
the pinned torch the two runs are recorded (tests/data/config_switches/recorded, its README says how) and read
here; on any other torch they run live (marked `torch_rerun`, which `make test` leaves to the lanes)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from support.paths import DATA

from torchcompile_doctor.rules import load_catalogue

PROGRAM = DATA / "config_switches" / "arange_bounds.py"
RECORDED = DATA / "config_switches" / "recorded"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(PROGRAM), *args], capture_output=True, text=True, timeout=300)


def test_the_recorded_runs_show_the_switch_crashing_a_program_that_runs_without_it():
    def recorded(name: str) -> str:
        return (RECORDED / name).read_text(encoding="utf-8")

    assert recorded("plain.stdout.txt").strip() == "20.0" and not recorded("plain.stderr.txt")
    assert not recorded("capture.stdout.txt") and "PendingUnbackedSymbolNotFound" in recorded("capture.stderr.txt")


@pytest.mark.slow
@pytest.mark.torch_rerun
def test_the_switch_crashes_a_program_that_runs_without_it():
    plain = _run()
    assert plain.returncode == 0 and plain.stdout.strip() == "20.0"
    switched = _run("capture")
    assert switched.returncode != 0
    assert "PendingUnbackedSymbolNotFound" in switched.stderr


def test_every_fix_that_offers_the_switch_says_it_can_crash():
    for rule in load_catalogue():
        for fix in [rule.fix, *(w.fix for w in rule.wordings)]:
            if fix and ("capture_scalar_outputs = True" in fix or "capture_dynamic_output_shape_ops = True" in fix):
                assert "PendingUnbackedSymbolNotFound" in fix, (rule.code, fix)
