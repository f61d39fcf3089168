"""The recompile fixes of tests/data/recompile_judgement applied to their programs (tests/capture/
test_recompile_fixes_apply.py): each finding whose fix rewrites the user's call line gives the program with its
`after` in place of its `before`; `record` runs each such program and its original plainly under
`TORCH_LOGS=recompiles` and keeps what torch logged and what the program printed, beside it in applied/:

    python tests/support/applied_fixes.py record
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: the shared test code is found from tests/
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from support.captures import JUDGEMENT_CAPTURES, reread
from torchcompile_doctor.model.report import Finding

APPLIED = JUDGEMENT_CAPTURES / "applied"
# (program, function): the call-line rewrites a recompile finding's fix makes
CASES = [
    ("call_line_names", "score"),
    ("call_line_names", "attend"),
    ("tied_lengths", "a2c_loss"),
    ("ranged_batch", "Scorer.forward"),
]


def recompile_finding(name: str, function: str) -> Finding:
    (finding,) = [
        f
        for f in reread(JUDGEMENT_CAPTURES / name).findings
        if f.kind == "recompile" and f.location and f.location.function == function
    ]
    return finding


def applied(program: str, before: str, after: str) -> str:
    """The program with its one `before` line replaced by the `after` lines, at that line's indentation."""
    lines = program.splitlines()
    (index,) = [i for i, line in enumerate(lines) if line.strip() == before]
    pad = lines[index][: len(lines[index]) - len(lines[index].lstrip())]
    return "\n".join([*lines[:index], *(pad + text for text in after.splitlines()), *lines[index + 1 :]]) + "\n"


def applied_program(name: str, function: str) -> str:
    """The program of `name` with the fix of `function`'s recompile applied."""
    fix = recompile_finding(name, function).fix
    assert fix is not None and fix.before and fix.after
    return applied((JUDGEMENT_CAPTURES / f"{name}.py").read_text(encoding="utf-8"), fix.before, fix.after)


def applied_path(name: str, function: str) -> Path:
    return APPLIED / f"{name}-{function.replace('.', '_')}.py"


def plain_run(program: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TORCH_LOGS": "recompiles"}
    return subprocess.run([sys.executable, program.name], cwd=program.parent, capture_output=True, text=True, env=env)


def record() -> None:
    """Write each applied program, run it and its original plainly, and keep their stderr and stdout."""
    APPLIED.mkdir(exist_ok=True)
    programs = {JUDGEMENT_CAPTURES / f"{name}.py" for name, _ in CASES}
    for name, function in CASES:
        path = applied_path(name, function)
        path.write_text(applied_program(name, function), encoding="utf-8")
        programs.add(path)
    for program in sorted(programs):
        run = plain_run(program)
        if run.returncode != 0:
            raise SystemExit(f"python {program.name} exited {run.returncode}:\n{run.stderr[-3000:]}")
        (APPLIED / f"{program.stem}.recompiles.txt").write_text(run.stderr, encoding="utf-8")
        (APPLIED / f"{program.stem}.stdout.txt").write_text(run.stdout, encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:] != ["record"]:
        raise SystemExit(__doc__)
    record()
