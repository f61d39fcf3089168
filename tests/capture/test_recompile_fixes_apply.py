"""The recompile fixes the doctor writes, applied and run: each program of tests/data/recompile_judgement whose
finding rewrites the user's call line is run again with the finding's `after` in place of its `before`, plainly
under `TORCH_LOGS=recompiles`, and must run as before with no recompile of that function left. This is the
house rule (before a rule says "do X", X was run on a real case) kept true on every torch the lanes run: the
mark on what the call line passes (a list's stacked tensor, `k` for `key`), the inputs tied to one length marked
together, torch's unbacked marking of a dynamic size bounded to a range."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.captures import JUDGEMENT_CAPTURES, reread

pytestmark = pytest.mark.slow

CASES = [
    ("call_line_names", "score"),
    ("call_line_names", "attend"),
    ("tied_lengths", "a2c_loss"),
    ("ranged_batch", "Scorer.forward"),
]


def _applied(program: str, before: str, after: str) -> str:
    """The program with its one `before` line replaced by the `after` lines, at that line's indentation."""
    lines = program.splitlines()
    (index,) = [i for i, line in enumerate(lines) if line.strip() == before]
    pad = lines[index][: len(lines[index]) - len(lines[index].lstrip())]
    return "\n".join([*lines[:index], *(pad + text for text in after.splitlines()), *lines[index + 1 :]]) + "\n"


@functools.cache
def _run(path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TORCH_LOGS": "recompiles"}
    return subprocess.run([sys.executable, str(path)], capture_output=True, text=True, env=env, timeout=300)


@pytest.mark.parametrize(("name", "function"), CASES)
def test_the_fix_applied_removes_the_recompile(tmp_path, name, function):
    (finding,) = [
        f
        for f in reread(JUDGEMENT_CAPTURES / name).findings
        if f.kind == "recompile" and f.location and f.location.function == function
    ]
    assert finding.fix is not None and finding.fix.before and finding.fix.after
    source = JUDGEMENT_CAPTURES / f"{name}.py"
    fixed = tmp_path / source.name
    fixed.write_text(_applied(source.read_text(), finding.fix.before, finding.fix.after))
    plain, applied = _run(source), _run(fixed)
    code_name = function.rpartition(".")[2]
    assert plain.returncode == 0 and f"Recompiling function {code_name}" in plain.stderr
    assert applied.returncode == 0, applied.stderr[-2000:]
    assert f"Recompiling function {code_name}" not in applied.stderr
    assert len(applied.stdout.splitlines()) == len(plain.stdout.splitlines())  # it still prints each result
