"""`doctor fix` live, for what only a live run proves (each kind of fix is proven on its recorded program in
test_recorded_fixes.py): candidates measured in a copy of the project, the helpful ones combined and applied (a
config switch, a keyword of the torch.compile call, rewrites), the patch applied and the program run again under
torch's own TORCH_LOGS (the breaks and recompiles it claims to remove are gone, the same lines printed); one patch
on three runs (the patched program's TORCH_LOGS recorded), each trial told on a redirected stderr; a patch of the
user's measured as ours are. Then what must never happen: work lost (a file with uncommitted changes is refused
before anything runs; outside git a backup is kept), bad input with a traceback, a failing program reported as
fixed, a spent budget taken for a result."""

from __future__ import annotations

import difflib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.doctor import doctor_here
from support.paths import TESTS
from support.torch_logs import read_torch_log

PROGRAMS = TESTS / "fix" / "programs"
RECORDED = TESTS / "fix" / "recorded"
pytestmark = pytest.mark.slow


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def _project(tmp_path: Path, program: str, *, git: bool = True) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    shutil.copy(PROGRAMS / program, root / program)
    if git:
        _git(root, "init", "-q")
        _git(root, "add", ".")
        _git(root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "the user's program")
    return root


def _torch_run(root: Path, program: str, tmp_path: Path, extra_env: dict | None = None) -> tuple[str, int, int]:
    """The program run plainly under TORCH_LOGS: (its stdout, graph breaks, recompiles) as torch logs them."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TORCH_TRACE", "PYTHONPATH"))}
    env["TORCH_LOGS"] = "graph_breaks,recompiles"
    env.update(extra_env or {})
    run = subprocess.run(
        [sys.executable, program], cwd=root, env=env, capture_output=True, text=True, timeout=300, check=True
    )
    log = tmp_path / f"{program}.{len(list(tmp_path.glob('*.log')))}.log"
    log.write_text(run.stderr, encoding="utf-8")
    torch_log = read_torch_log(log)
    return run.stdout, len({(b.file, b.line) for b in torch_log.breaks}), len(torch_log.recompiles)


def _recorded_torch_run(program: str) -> tuple[str, int, int]:
    """`_torch_run` of the program as written (`NAME.py`), or as patched (`fixed/NAME.py`), recorded
    (tests/fix/recorded/README.md): torch's own account of the run."""
    stem = RECORDED / Path(program).with_suffix("")
    torch_log = read_torch_log(stem.with_suffix(".torch_logs.txt"))
    printed = stem.with_suffix(".stdout.txt").read_text(encoding="utf-8")
    return printed, len({(b.file, b.line) for b in torch_log.breaks}), len(torch_log.recompiles)


def test_a_config_switch_a_compile_keyword_and_rewrites_are_measured_combined_and_applied(tmp_path):
    root = _project(tmp_path, "breaks_and_recompiles.py", git=False)  # outside git: a backup of the file is kept
    original = (root / "breaks_and_recompiles.py").read_text()
    before = _recorded_torch_run("breaks_and_recompiles.py")
    assert before[1:] == (2, 2)  # torch's own count: the `.item()` and `if` breaks; the int's recompile, and the
    # number carried across the `.item()` break recompiling the code after it

    run = doctor_here("fix", str(root / "breaks_and_recompiles.py"), "--apply", "--jobs", "1", "--format", "json")
    assert run.returncode == 0, run.stderr
    report = run.json
    switch, keyword = "torch._dynamo.config.capture_scalar_outputs = True", "torch.compile(..., dynamic=True)"
    branch = "`if x.sum() < 0:` made `return torch.where(x.sum() < 0, -x, x)` (breaks_and_recompiles.py:23)"
    item = "`s = x.sum().item()` made `s = x.sum()` (breaks_and_recompiles.py:16)"  # the report's own rewrites
    tensor = "made `total += float(step(x, torch.tensor(n)).sum())"
    *alone, combined = report["trials"]  # each change alone, then the helpful ones together
    assert len(alone) == 5 and all(trial["status"] in ("fixed", "improved") for trial in alone)
    assert {switch, keyword, branch, item} <= {trial["change"] for trial in alone}
    assert any(tensor in trial["change"] for trial in alone)
    # together: the branch, and one change each for the `.item()` break and the int (two changes that answer the
    # same findings are alternatives: the patch carries the better one)
    together = report["patch"]["changes"]
    assert combined["status"] in ("fixed", "improved") and combined["change"] == " + ".join(together)
    assert len(together) == 3 and branch in together
    assert len({switch, item} & set(together)) == 1
    assert len({keyword} & set(together)) + sum(tensor in change for change in together) == 1
    patch = report["patch"]
    assert patch["after"]["graph_breaks"] == 0 and patch["after"]["recompiles"] == 0
    assert report["applied"] == ["breaks_and_recompiles.py"]
    assert report["backups"] == ["breaks_and_recompiles.py.doctor-backup"]
    assert (root / "breaks_and_recompiles.py.doctor-backup").read_text() == original

    patched = (root / "breaks_and_recompiles.py").read_text()
    if keyword in together:  # the keyword goes to the compile of the function that recompiled, not to every one
        assert 'step = torch.compile(scale, backend="eager", dynamic=True)' in patched
    assert '@torch.compile(backend="eager")\ndef norm' in patched
    assert "    x = x * 2.0\n    return torch.where(x.sum() < 0, -x, x)\n" in patched
    assert patched.startswith('"""doctor fix case')  # the rest of the file as the user wrote it
    after = _torch_run(root, "breaks_and_recompiles.py", tmp_path)
    assert after == (before[0], 0, 0)


def test_uncommitted_work_is_refused_before_anything_is_measured(tmp_path):
    root = _project(tmp_path, "batch_sizes.py")
    program = root / "batch_sizes.py"
    edited = program.read_text() + "# the user's edit, not committed\n"
    program.write_text(edited)
    run = doctor_here("fix", str(program), "--apply")
    assert run.returncode == 2
    assert run.stderr.strip().splitlines()[-1] == (
        "doctor: error: batch_sizes.py has changes git has not committed: commit or stash them, then run doctor fix "
        "--apply again (nothing was written)"
    )
    assert "Traceback" not in run.stderr and program.read_text() == edited


def test_a_program_that_fails_on_its_own_is_reported_not_fixed(tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    (root / "broken.py").write_text("import torch\n\nraise SystemExit('no data')\n")
    run = doctor_here("fix", str(root / "broken.py"), "--format", "json")
    assert run.returncode == 3
    assert run.json["patch"] is None and run.json["before_succeeded"] is False
    assert run.json["notes"] == [
        "the program did not run to its end without the doctor's changes: its fixes were not measured"
    ]


def test_a_spent_budget_measures_nothing_and_says_so(tmp_path):
    root = _project(tmp_path, "batch_sizes.py")
    run = doctor_here("fix", str(root / "batch_sizes.py"), "--budget", "1", "--format", "json")
    assert run.returncode == 1  # nothing measured helped: nothing to apply
    statuses = [trial["status"] for trial in run.json["trials"]]
    assert statuses and set(statuses) == {"not measured"}
    # the report's rewrite and the experiment make the same edit here: measured once, so one waits on the budget
    by_budget = [t for t in run.json["trials"] if not (t["detail"] or "").startswith("the same edit as ")]
    assert by_budget and run.json["notes"] == [
        f"the budget (1 s) was spent: {len(by_budget)} change(s) not measured; --budget gives more"
    ]


# Sets a variable torch reads when torch._dynamo is imported: `.item()` compiles into the graph, but in a run forked
# from the warm process, which imported torch before the program ran, it would break the graph.
SETS_TORCH_VARIABLE = """\
import os

os.environ["TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS"] = "1"

import torch


@torch.compile(backend="eager")
def scaled(x):
    return x * x.sum().item()


print(float(scaled(torch.ones(2)).sum()))
"""


def test_a_program_without_anything_to_fix_says_so(tmp_path):
    """Nothing to fix, seen in the plain run run again afresh: the program sets a variable torch reads when imported,
    so its run forked from the warm process (where `.item()` would break the graph) is not the plain run."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "clean.py").write_text(SETS_TORCH_VARIABLE)
    run = doctor_here("fix", str(root / "clean.py"))
    assert run.returncode == 1
    assert "nothing to fix: no finding of this run asks for a change doctor fix can make" in run.stdout
    assert "Nothing to apply." in run.stdout


def test_three_runs_give_one_patch_and_each_trial_is_told_on_a_redirected_stderr(tmp_path):
    """Two candidates for one recompile (the experiment's `mark_dynamic` and the report's rewrite, which make the
    same edit), measured three times on a busy machine: one patch every time (a compile time inside the plain
    run's spread never decides), the same edit measured once and the other candidate saying so; a line per
    finished trial on stderr (a file here, as in CI), none with --quiet."""
    root = _project(tmp_path, "batch_sizes.py")
    runs = [doctor_here("fix", str(root / "batch_sizes.py"), "--format", "json", "--jobs", "2")]
    runs += [doctor_here("fix", str(root / "batch_sizes.py"), "--format", "json", "--quiet") for _ in range(2)]
    assert [run.returncode for run in runs] == [0, 0, 0], runs[0].stderr
    patches = [
        (run.json["patch"]["changes"], [(t["change"], t["status"], t["detail"]) for t in run.json["trials"]])
        for run in runs
    ]
    assert len({run.json["patch"]["diff"] for run in runs}) == 1, patches
    assert len({tuple(left["change"] for left in run.json["left_out"]) for run in runs}) == 1, patches
    assert all(left["reason"] for run in runs for left in run.json["left_out"])
    same = [t for t in runs[0].json["trials"] if (t["detail"] or "").startswith("the same edit as ")]
    assert len(same) == 1 and same[0]["status"] == "not measured" and same[0]["after"] is None
    assert runs[0].json["noise"]["compile_s"]["runs"] == 2  # the plain run twice more, forked as the trials are
    assert runs[0].json["noise"]["forked"] is True  # and those two are the "before" of every timing printed
    told = [line for line in runs[0].stderr.splitlines() if line.startswith("doctor: trial ")]
    assert told and told[0].startswith("doctor: trial 1/") and "measured in" in told[0]
    assert not any("doctor: trial" in run.stderr for run in runs[1:])

    # the patch as a diff, applied with git (nothing was written without --apply), is the patched program whose
    # plain run torch logged (recorded: tests/fix/recorded/README.md): the recompile gone, the same lines printed
    before = _recorded_torch_run("batch_sizes.py")
    assert before[2] == 1 and (root / "batch_sizes.py").read_text() == (PROGRAMS / "batch_sizes.py").read_text()
    diff = runs[0].json["patch"]["diff"]
    assert diff.count("torch._dynamo.mark_dynamic(batch, 0)") == 1 and "\n     out = pool(batch, weights)\n" in diff
    (tmp_path / "fix.patch").write_text(diff)
    _git(root, "apply", str(tmp_path / "fix.patch"))
    assert (root / "batch_sizes.py").read_text() == (RECORDED / "fixed" / "batch_sizes.py").read_text()
    assert _recorded_torch_run("fixed/batch_sizes.py") == (before[0], 0, 0)


def test_a_patch_of_the_user_s_is_measured_as_ours_are(tmp_path):
    """`--candidate PATCH`: a person's patch that removes the recompile is the patch, with each finding's problems
    before → after; one that breaks the program is refused with torch's or Python's last line."""
    root = _project(tmp_path, "batch_sizes.py")
    program = (root / "batch_sizes.py").read_text()
    marked = program.replace(
        "    out = pool(batch, weights)\n", "    torch._dynamo.mark_dynamic(batch, 0)\n    out = pool(batch, weights)\n"
    )
    broken = program.replace("    out = pool(batch, weights)\n", "    out = pool(batch, weights[:3])\n")
    for name, text in (("good.patch", marked), ("broken.patch", broken)):
        lines = difflib.unified_diff(
            program.splitlines(True), text.splitlines(True), "a/batch_sizes.py", "b/batch_sizes.py"
        )
        (tmp_path / name).write_text("".join(lines))
    good = doctor_here(
        "fix", str(root / "batch_sizes.py"), "--candidate", str(tmp_path / "good.patch"), "--format", "json", "--quiet"
    )
    assert good.returncode == 0, good.stderr
    (trial,) = good.json["trials"]
    assert trial["change"] == "the patch good.patch" and trial["status"] in ("fixed", "improved")
    assert [(f["before"], f["after"]) for f in trial["by_finding"]] == [(1, 0)]
    assert good.json["patch"]["after"]["recompiles"] == 0
    bad = doctor_here("fix", str(root / "batch_sizes.py"), "--candidate", str(tmp_path / "broken.patch"), "--quiet")
    assert bad.returncode == 1, bad.stderr
    assert "crashed" in bad.stdout and "RuntimeError" in bad.stdout
    assert (root / "batch_sizes.py").read_text() == program  # nothing written
