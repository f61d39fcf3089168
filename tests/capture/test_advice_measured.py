"""Advice the catalogue gives as measured: each case program breaks under `TORCH_LOGS=graph_breaks`, and the same
program with the rule's fix applied does not. This measures torch alone: on the pinned torch what it logged is
recorded (tests/data/advice/recorded/, `python tests/support/advice_runs.py record`) and read here, each with the
rule that gives the advice; on any other torch (the lane of the newest, a new pin) it runs live (marked
`torch_rerun`, which `make test` leaves to the lanes)."""

from __future__ import annotations

import pytest
from support.advice_runs import BREAK, recorded_log, torch_log
from support.captures import reread
from support.paths import DATA, RULES

from torchcompile_doctor.torch_releases import installed_torch_version, release_of

# the rule's case, what torch breaks on it, and the advised program (or Python flags) that does not break
CASES = {
    "TCD126": (RULES / "TCD126" / "cudnn_flags.py", 2, DATA / "advice" / "context_outside.py", ()),  # the `with`,
    # and the rest torch then skips
    "TCD125": (RULES / "TCD125" / "contextvar.py", 1, None, ()),
    "TCD104": (RULES / "TCD104" / "item_assert.py", 1, RULES / "TCD104" / "item_assert.py", ("-O",)),
}


@pytest.mark.parametrize("code", sorted(CASES))
def test_the_recorded_runs_break_as_the_rule_says_and_its_advice_removes_the_breaks(code):
    program, breaks, advised, flags = CASES[code]
    assert recorded_log(program).read_text(encoding="utf-8").count(BREAK) == breaks
    assert code in {f.code for f in reread(program.with_suffix(".capture")).findings}  # the rule finds it there
    if advised is not None:
        assert recorded_log(advised, *flags).read_text(encoding="utf-8").count(BREAK) == 0


@pytest.mark.slow
@pytest.mark.torch_rerun
def test_context_manager_and_contextvar_fixes_remove_the_breaks():
    assert torch_log(RULES / "TCD126" / "cudnn_flags.py").count(BREAK) == 2  # the `with`, and the rest torch skips
    assert torch_log(DATA / "advice" / "context_outside.py").count(BREAK) == 0
    # measured on 2.13 (1) and 2.15 (0): torch 2.15 traces a `ContextVar.get()` read, so TCD125 never fires there
    release = release_of(installed_torch_version()) or "0.0"
    traces_contextvar_get = tuple(map(int, release.split("."))) >= (2, 15)
    assert torch_log(RULES / "TCD125" / "contextvar.py").count(BREAK) == (0 if traces_contextvar_get else 1)


@pytest.mark.slow
@pytest.mark.torch_rerun
def test_python_O_strips_a_breaking_assert():
    program = RULES / "TCD104" / "item_assert.py"
    assert torch_log(program).count(BREAK) == 1
    assert torch_log(program, "-O").count(BREAK) == 0
