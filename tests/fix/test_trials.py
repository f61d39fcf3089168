"""Measuring candidates in trial copies of a real project on disk, the program run for real in each copy (here
without torch: what a trial's figures are is the pipeline's business, tested live in test_doctor_fix.py): a
change that prints other results is refused, unless a plain run again prints other results too."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from torchcompile_doctor.fix.candidates import Candidate, FileEdit
from torchcompile_doctor.fix.trials import best, measure_candidates
from torchcompile_doctor.fix.judge import HELPS, OUTPUT_CHANGED, RunResult
from torchcompile_doctor.model.findings import RunFigures
from torchcompile_doctor.patches.edits import AfterTorchImport

FIXED = "torch.fixed = True"


def _project(tmp_path: Path, program: str) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "train.py").write_text(program)
    (root / "torch.py").write_text("fixed = False\n")  # a stand-in module the change sets a flag on
    return root


def _measure(copy: Path, seconds: float) -> RunResult:
    """Run the copy's program; a run whose code holds the change has no graph break."""
    run = subprocess.run([sys.executable, "train.py"], cwd=copy, capture_output=True, text=True, timeout=seconds)
    breaks = 0 if FIXED in (copy / "train.py").read_text() else 1
    return RunResult(RunFigures(breaks, 0, 1, 0, 0, 0.1), 0, run.returncode == 0, run.returncode, run.stdout, "", 0.1)


def _candidate(root: Path) -> Candidate:
    return Candidate(
        "the flag", ("TCD104",), ("a break",), (FileEdit(root / "train.py", AfterTorchImport(FIXED)),), False
    )


def _measured(root: Path):
    before = _measure(root, 30)
    originals = {root / "train.py": (root / "train.py").read_text()}
    return measure_candidates([_candidate(root)], root, originals, before, _measure, jobs=1, budget_s=60)


@pytest.mark.slow
def test_a_change_that_prints_other_results_is_refused(tmp_path):
    root = _project(tmp_path, "import torch\nprint('loss', 0.7 if torch.fixed else 0.5)\n")
    measured = _measured(root)
    assert measured.output_varies is None  # a plain run again printed the same
    (trial,) = measured.trials
    assert trial.verdict.status == OUTPUT_CHANGED and "loss 0.5" in (trial.verdict.detail or "")


@pytest.mark.slow
def test_a_program_that_prints_other_results_on_every_run_is_judged_by_its_figures(tmp_path):
    # 16 random bytes: two runs never print lines the verdict reads as the same (a 4-byte int printed as a number
    # came within its 1e-3 tolerance of the last run's now and then, and the test flaked)
    root = _project(tmp_path, "import os\nimport torch\nprint('seed', os.urandom(16).hex())\n")
    measured = _measured(root)
    assert measured.output_varies is not None and measured.output_varies.startswith("printed line 1 was `seed")
    (trial,) = measured.trials
    assert trial.verdict.status == HELPS


def _measure_problems(copy: Path, seconds: float) -> RunResult:
    """The copy's program run; each flag it sets removes the problems named for it (by finding key)."""
    run = subprocess.run([sys.executable, "train.py"], cwd=copy, capture_output=True, text=True, timeout=seconds)
    code = (copy / "train.py").read_text()
    problems = {"TCD104 train.py f": 1, "TCD202 train.py g": 2}
    if "torch.switch = True" in code or "torch.rewrite = True" in code:
        del problems["TCD104 train.py f"]
    if "torch.keyword = True" in code:
        del problems["TCD202 train.py g"]
    figures = RunFigures(
        1 if "TCD104 train.py f" in problems else 0, problems.get("TCD202 train.py g", 0), 1, 0, 0, 0.1
    )
    return RunResult(figures, 0, run.returncode == 0, run.returncode, run.stdout, "", 0.1, problems=problems)


@pytest.mark.slow
def test_two_changes_that_remove_the_same_problem_are_alternatives_not_a_combination(tmp_path):
    root = _project(tmp_path, "import torch\nprint('ok')\n")
    originals = {root / "train.py": (root / "train.py").read_text()}

    def flag(name: str) -> Candidate:
        edit = FileEdit(root / "train.py", AfterTorchImport(f"torch.{name} = True"))
        return Candidate(name, ("TCD104",), (f"{name}'s finding",), (edit,), False)

    before = _measure_problems(root, 30)
    chosen = [flag("switch"), flag("rewrite"), flag("keyword")]
    measured = measure_candidates(chosen, root, originals, before, _measure_problems, jobs=1, budget_s=60)
    assert [t.verdict.status for t in measured.trials] == [HELPS, HELPS, HELPS]
    # the switch and the rewrite remove the same break: the combination holds the keyword (it leaves the fewest
    # problems, so it goes first) and the first of the two equals
    assert measured.combined is not None
    assert [c.title for c in measured.combined.candidates] == ["keyword", "switch"]
    assert best(measured.trials, measured.combined) is measured.combined
    assert measured.combined.result is not None and measured.combined.result.problems == {}
