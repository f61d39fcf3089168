"""No guard internal reaches a change line (#35): what changed between cache entries, in a recompile finding
(`changed:`) and in the guards section (`changed from the previous entry:`), names values as the user's code does.
A value carried across a graph break (torch's `___stack0`) is said as that: by the break's line where the frame is
the resume function of a known break, a loop's range iterator as the loop's range; torch's `L['x']`, `G['x']` as `x`.
Checked on every recorded capture under tests/, re-read in-process."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.captures import SAMPLE_CAPTURES, capture_dirs, reread, trace_files
from support.paths import REPO

from torchcompile_doctor.model.report import Report

GUARD_INTERNALS = ("___", "L['", "G['")
CAPTURES = capture_dirs() + trace_files()


def change_lines(report: Report) -> list[str]:
    """Every change line a user reads: the recompile findings' and the guards section's."""
    findings = [change for finding in report.findings for change in finding.changes]
    return findings + [change for frame in report.guards for entry in frame.entries for change in entry.changed]


@pytest.mark.parametrize("capture", CAPTURES, ids=lambda p: str(p.relative_to(REPO)))
def test_no_guard_internal_reaches_a_change_line(capture: Path):
    shown = [line for line in change_lines(reread(capture)) if any(i in line for i in GUARD_INTERNALS)]
    assert not shown


def test_the_captures_hold_change_lines_that_torch_wrote_with_internals():
    """The check above is not vacuous: the recordings' change lines come from guards that named `___stack0`,
    a loop's `___normalize_range_iter`, `__builtins_dict___N` and `___dict_contains`, now said in words."""
    lines = [line for capture in CAPTURES for line in change_lines(reread(capture))]
    assert len(lines) > 100
    assert any("the value carried across the graph break at " in line for line in lines)
    assert any("the loop's range (start, stop, step) carried across the break" in line for line in lines)
    assert any(" has no submodule `" in line or " has no key '" in line for line in lines)


def test_a_carried_value_is_named_by_its_break_in_the_guards_section():
    """loop_early_exit.py breaks at line 13 (`if (z_next - z).abs().max() < tol:`) inside `for i in range(30)`:
    the resume function's entries differ by the loop's position, said as the loop's range it carries."""
    report = reread(SAMPLE_CAPTURES / "loop_early_exit.capture")
    (recompile,) = [f for f in report.findings if f.kind == "recompile"]
    assert recompile.changes[0].startswith("the loop's range (start, stop, step) carried across the break: (1, 30, 1)")
