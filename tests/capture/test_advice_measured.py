"""Advice the catalogue gives as measured, measured again on this torch: each case program breaks under
`TORCH_LOGS=graph_breaks`, and the same program with the rule's fix applied does not."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import DATA, RULES

BREAK = "Graph break in user code"


def _breaks(program: Path, *python_flags: str) -> int:
    env = {**os.environ, "TORCH_LOGS": "graph_breaks"}
    command = [sys.executable, *python_flags, str(program)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stderr.count(BREAK)


@pytest.mark.slow
def test_context_manager_and_contextvar_fixes_remove_the_breaks():
    assert _breaks(RULES / "TCD126" / "cudnn_flags.py") == 2  # the `with`, and the rest torch then skips
    assert _breaks(RULES / "TCD125" / "contextvar.py") == 1
    assert _breaks(DATA / "advice" / "context_outside.py") == 0


@pytest.mark.slow
def test_python_O_strips_a_breaking_assert():
    program = RULES / "TCD104" / "item_assert.py"
    assert _breaks(program) == 1
    assert _breaks(program, "-O") == 0
