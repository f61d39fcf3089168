"""`doctor fix --candidate PATCH`: a unified diff of a person's or an agent's, read as text and applied in memory to
the project's files (a good patch, a patch that does not apply, a patch that is no patch); measured by the trial
engine as our own candidates are (a good patch helps, one that breaks the program is refused); and through the CLI
a patch that does not apply is one line, exit 2, before anything runs."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest
from support.doctor import doctor_in_process

from torchcompile_doctor.errors import DoctorError
from torchcompile_doctor.fix.given_patch import applied, parse_patch
from torchcompile_doctor.fix.session import GivenPatch
from torchcompile_doctor.fix.trials import measure_candidates
from torchcompile_doctor.model.findings import RunFigures
from torchcompile_doctor.model.trial import Outcome, RunResult

PROGRAM = """import torch


def step(x):
    s = x.sum().item()
    return x * s


compiled = torch.compile(step, backend="eager")
print("loss", float(compiled(torch.ones(3)).sum()))
"""


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "train.py").write_text(PROGRAM)
    return root


def _diff(before: str, after: str, name: str = "train.py") -> str:
    lines = difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True), f"a/{name}", f"b/{name}"
    )
    return "".join(lines)


FIXED = PROGRAM.replace("    s = x.sum().item()\n", "    s = x.sum()\n")


def test_a_patch_as_git_diff_writes_it_gives_each_file_s_new_text(tmp_path):
    root = _project(tmp_path)
    text = "diff --git a/train.py b/train.py\nindex 1..2 100644\n" + _diff(PROGRAM, FIXED)
    assert applied(root, text, "fix.patch") == {(root / "train.py").resolve(): FIXED}
    # two hunks, the second an insertion with no line removed
    twice = FIXED.replace('print("loss"', 'torch.manual_seed(0)\nprint("loss"')
    assert applied(root, _diff(PROGRAM, twice), "fix.patch") == {(root / "train.py").resolve(): twice}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("just words\n", "fix.patch: not a unified diff (no `--- a/FILE` / `+++ b/FILE` pair)"),
        (_diff(PROGRAM.replace("x * s", "x + s"), FIXED), "fix.patch: hunk 1 of train.py does not match the file"),
        (_diff(PROGRAM, FIXED, "../elsewhere.py"), "fix.patch: ../elsewhere.py is outside the project"),
        (_diff(PROGRAM, FIXED, "missing.py"), "fix.patch: missing.py is not a text file of the project"),
        ("--- a/train.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n", "fix.patch: deletes train.py"),
    ],
)
def test_a_patch_that_does_not_apply_is_refused_with_one_line(tmp_path, text, message):
    with pytest.raises(DoctorError) as refused:
        applied(_project(tmp_path), text, "fix.patch")
    assert str(refused.value).startswith(message) and "\n" not in str(refused.value)


def test_a_hunk_that_ends_early_is_no_patch():
    with pytest.raises(DoctorError, match="a hunk ends before the lines its header counts"):
        parse_patch("--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,3 @@\n a\n", "p")


def _measure(copy: Path, seconds: float) -> RunResult:
    """What the program's run gives, read from its text (no process): the `.item()` breaks; a `raise` crashes."""
    code = (copy / "train.py").read_text()
    crashed = "raise" in code
    breaks = 1 if ".item()" in code else 0
    problems = {"TCD104 train.py step": 1} if breaks else {}
    figures = RunFigures(breaks, 0, 1 + breaks, 0, 0, 0.5)
    output = "" if crashed else "loss 3.0\n"
    errors = "RuntimeError: no\n" if crashed else ""
    return RunResult(figures, 0, not crashed, 1 if crashed else 0, output, errors, 1.0, problems=problems)


def test_a_given_patch_is_measured_as_our_own_candidates(tmp_path):
    root = _project(tmp_path)
    before = _measure(root, 30)
    originals = {(root / "train.py").resolve(): PROGRAM}

    def measured(after: str):
        given = GivenPatch("fix.patch", applied(root, _diff(PROGRAM, after), "fix.patch"))
        run = measure_candidates(
            [], root, originals, before, _measure, jobs=1, budget_s=60, prepared=[(given.candidate, given.changed)]
        )
        (trial,) = run.trials
        return trial, run.patch

    good, patch = measured(FIXED)
    assert good.title == "the patch fix.patch" and good.helps and patch is good
    assert good.result is not None and good.result.problems == {}
    broken, patch = measured(PROGRAM.replace("    return x * s\n", "    raise RuntimeError('no')\n"))
    assert broken.verdict.outcome == Outcome.CRASHED and broken.verdict.detail == "RuntimeError: no"
    assert patch is None


@pytest.mark.slow  # finding the project asks git for its work tree
def test_the_cli_refuses_a_patch_that_does_not_apply_before_anything_runs(tmp_path):
    root = _project(tmp_path)
    (tmp_path / "bad.patch").write_text(_diff(PROGRAM.replace("x * s", "x - s"), FIXED))
    run = doctor_in_process("fix", str(root / "train.py"), "--candidate", str(tmp_path / "bad.patch"), cwd=tmp_path)
    assert run.returncode == 2
    assert run.stderr.strip() == (
        "doctor: error: --candidate bad.patch: hunk 1 of train.py does not match the file at line 2"
    )
    missing = doctor_in_process("fix", str(root / "train.py"), "--candidate", "nope.patch", cwd=tmp_path)
    assert missing.returncode == 2 and "--candidate nope.patch: no such file" in missing.stderr
