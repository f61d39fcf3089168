"""The recompile fixes the doctor writes, applied and run: each program of tests/data/recompile_judgement whose
finding rewrites the user's call line is run with the finding's `after` in place of its `before`, plainly under
`TORCH_LOGS=recompiles`, and must run as before with no recompile of that function left. This is the house rule
(before a rule says "do X", X was run on a real case): the mark on what the call line passes (a list's stacked
tensor, `k` for `key`), the inputs tied to one length marked together, torch's unbacked marking of a dynamic size
bounded to a range.

On the pinned torch the runs are recorded (applied/, `python tests/support/applied_fixes.py record`): the fix
the doctor writes today must be the program that was run. On any other torch (the lane of the newest, a new pin)
they run live (marked `torch_rerun`, which `make test` leaves to the lanes)."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from support.applied_fixes import APPLIED, CASES, applied_path, applied_program, plain_run
from support.captures import JUDGEMENT_CAPTURES


def _recompiled(torch_log: str, function: str) -> bool:
    return f"Recompiling function {function.rpartition('.')[2]}" in torch_log


@pytest.mark.parametrize(("name", "function"), CASES)
def test_the_fix_the_doctor_writes_is_the_recorded_program_that_no_longer_recompiles(name, function):
    recorded = applied_path(name, function)
    assert applied_program(name, function) == recorded.read_text(encoding="utf-8")
    plain, fixed = (APPLIED / f"{stem}.recompiles.txt" for stem in (name, recorded.stem))
    assert _recompiled(plain.read_text(encoding="utf-8"), function)
    assert not _recompiled(fixed.read_text(encoding="utf-8"), function)
    printed = [(APPLIED / f"{stem}.stdout.txt").read_text(encoding="utf-8") for stem in (name, recorded.stem)]
    assert printed[0] and len(printed[1].splitlines()) == len(printed[0].splitlines())  # it still prints each result


@functools.cache
def _run(path: Path):  # type: ignore[no-untyped-def]
    return plain_run(path)


@pytest.mark.slow
@pytest.mark.torch_rerun
@pytest.mark.parametrize(("name", "function"), CASES)
def test_the_fix_applied_removes_the_recompile_on_this_torch(tmp_path, name, function):
    fixed = tmp_path / f"{name}.py"
    fixed.write_text(applied_program(name, function), encoding="utf-8")
    plain, applied = _run(JUDGEMENT_CAPTURES / f"{name}.py"), _run(fixed)
    assert plain.returncode == 0 and _recompiled(plain.stderr, function)
    assert applied.returncode == 0, applied.stderr[-2000:]
    assert not _recompiled(applied.stderr, function)
    assert len(applied.stdout.splitlines()) == len(plain.stdout.splitlines())  # it still prints each result
