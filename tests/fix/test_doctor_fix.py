"""`doctor fix` live, one program per kind of fix (tests/fix/programs/): a config switch and a keyword of the
torch.compile call, `mark_dynamic` on what the user passes at their line, regional compilation of the blocks the
graph repeats. Each patch is applied and the program run again under torch's own TORCH_LOGS: the breaks and
recompiles the patch claims to remove are gone, and the program prints what it printed before. Then what must
never happen: work lost (a file with uncommitted changes is refused before anything runs; outside git a backup
is kept), bad input with a traceback, a failing program reported as fixed."""

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


def test_a_config_switch_a_compile_keyword_and_rewrites_are_measured_combined_and_applied(tmp_path):
    root = _project(tmp_path, "breaks_and_recompiles.py")
    before = _torch_run(root, "breaks_and_recompiles.py", tmp_path)
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
    assert report["applied"] == ["breaks_and_recompiles.py"] and report["backups"] == []

    patched = (root / "breaks_and_recompiles.py").read_text()
    if keyword in together:  # the keyword goes to the compile of the function that recompiled, not to every one
        assert 'step = torch.compile(scale, backend="eager", dynamic=True)' in patched
    assert '@torch.compile(backend="eager")\ndef norm' in patched
    assert "    x = x * 2.0\n    return torch.where(x.sum() < 0, -x, x)\n" in patched
    assert patched.startswith('"""doctor fix case')  # the rest of the file as the user wrote it
    after = _torch_run(root, "breaks_and_recompiles.py", tmp_path)
    assert after == (before[0], 0, 0)


def test_mark_dynamic_goes_on_the_tensor_the_user_passes_and_the_diff_applies_with_git(tmp_path):
    root = _project(tmp_path, "batch_sizes.py")
    before = _torch_run(root, "batch_sizes.py", tmp_path)
    assert before[2] == 1

    run = doctor_here("fix", str(root / "batch_sizes.py"), "--jobs", "1", "--format", "diff")
    assert run.returncode == 0, run.stderr
    # the report's own rewrite and the mark_dynamic experiment make the same mark: the patch holds one of them
    assert run.stdout.count("torch._dynamo.mark_dynamic(batch, 0)") == 1
    assert "\n     out = pool(batch, weights)\n" in run.stdout
    assert (root / "batch_sizes.py").read_text() == (PROGRAMS / "batch_sizes.py").read_text()  # not --apply
    (tmp_path / "fix.patch").write_text(run.stdout)
    _git(root, "apply", str(tmp_path / "fix.patch"))
    assert _torch_run(root, "batch_sizes.py", tmp_path) == (before[0], 0, 0)


def test_regional_compilation_over_the_model_s_real_block_list_outside_git_keeps_a_backup(tmp_path):
    root = _project(tmp_path, "deep_encoder.py", git=False)
    original = (root / "deep_encoder.py").read_text()
    before = _torch_run(root, "deep_encoder.py", tmp_path)

    run = doctor_here("fix", str(root / "deep_encoder.py"), "--apply", "--jobs", "1")
    assert run.returncode == 0, run.stderr
    # the one change of the patch, the rule that asked for it, and its measured compile time
    change = "`for block in model.layers: block.compile()` instead of compiling the model [TCD601]: compile "
    assert change in run.stdout
    patched = (root / "deep_encoder.py").read_text()
    assert 'model = Encoder()\nfor block in model.layers:\n    block.compile(backend="aot_eager")\n' in patched
    assert (root / "deep_encoder.py.doctor-backup").read_text() == original
    assert "Written: deep_encoder.py" in run.stdout and "deep_encoder.py.doctor-backup" in run.stdout
    assert _torch_run(root, "deep_encoder.py", tmp_path)[0] == before[0]  # the same checksum


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


def test_a_program_without_anything_to_fix_says_so(tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    (root / "clean.py").write_text(
        "import torch\n\nf = torch.compile(torch.sin, backend='eager')\nprint(float(f(torch.ones(2)).sum()))\n"
    )
    run = doctor_here("fix", str(root / "clean.py"))
    assert run.returncode == 1
    assert "nothing to fix: no finding of this run asks for a change doctor fix can make" in run.stdout
    assert "Nothing to apply." in run.stdout


def test_a_step_s_backward_and_optimizer_calls_move_after_its_call(tmp_path):
    root = _project(tmp_path, "train_step.py")
    before = _torch_run(root, "train_step.py", tmp_path)
    assert before[1] > 0  # torch breaks the graph at the backward call and in the optimizer

    run = doctor_here("fix", str(root / "train_step.py"), "--jobs", "1", "--format", "diff")
    assert run.returncode == 0, run.stderr
    assert "-    loss.backward()\n-    opt.step()\n-    opt.zero_grad()\n" in run.stdout
    assert (
        "     step_loss = train_step(x, y)\n+    step_loss.backward()\n+    opt.step()\n+    opt.zero_grad()\n"
        in run.stdout
    )
    (tmp_path / "fix.patch").write_text(run.stdout)
    _git(root, "apply", str(tmp_path / "fix.patch"))
    assert _torch_run(root, "train_step.py", tmp_path) == (before[0], 0, 0)  # the same losses, no break


def _trial(report: dict, words: str) -> dict:
    (found,) = [trial for trial in report["trials"] if words in trial["change"]]
    return found


def test_the_report_s_own_rewrite_binds_the_stacked_tensors_and_marks_those_torch_ties(tmp_path):
    # the user's `values` is a list: `mark_dynamic(values, 0)` would raise; the rewrite marks what the call passes
    root = _project(tmp_path, "rollouts.py")
    before = _torch_run(root, "rollouts.py", tmp_path)
    assert before[2] == 1

    run = doctor_here("fix", str(root / "rollouts.py"), "--jobs", "1", "--format", "json")
    assert run.returncode == 0, run.stderr
    rewrite = _trial(run.json, "made `loss = episode_loss(log_probs_tensor, values_tensor, returns)`")
    assert rewrite["status"] in ("fixed", "improved") and rewrite["codes"] == ["TCD301"]
    assert "+    values_tensor = torch.stack(values)\n" in rewrite["diff"]
    assert "+    torch._dynamo.mark_dynamic(returns, 0)\n" in rewrite["diff"]
    (tmp_path / "rewrite.patch").write_text(rewrite["diff"])
    _git(root, "apply", str(tmp_path / "rewrite.patch"))
    assert _torch_run(root, "rollouts.py", tmp_path) == (before[0], 0, 0)


def test_a_dimension_torch_bounded_is_marked_unbacked_with_the_input_tied_to_it(tmp_path):
    root = _project(tmp_path, "served_batches.py")
    before = _torch_run(root, "served_batches.py", tmp_path)
    assert before[2] == 1  # the single request

    run = doctor_here("fix", str(root / "served_batches.py"), "--jobs", "1", "--apply", "--format", "json")
    assert run.returncode == 0, run.stderr
    # it leaves the recompile; its compile costs more, beyond the noise floor on a busy machine, not on a quiet one
    assert _trial(run.json, "torch.compile(..., dynamic=True)")["status"] in ("no effect", "worse")
    patched = (root / "served_batches.py").read_text()
    assert (
        "        torch._dynamo.decorators.mark_unbacked(tokens, 0)\n"
        "        torch._dynamo.decorators.mark_unbacked(lengths, 0)\n"
        "        logits = compiled(tokens, lengths)\n"
    ) in patched
    assert _torch_run(root, "served_batches.py", tmp_path) == (before[0], 0, 0)


def test_an_argument_the_call_left_out_is_passed_where_the_library_used_it_while_none(tmp_path):
    # the library (outside the project, as an installed package is) fills the mask only when Dynamo is not tracing
    root = _project(tmp_path, "left_out_mask.py")
    with_library = _with_toy_library(tmp_path)
    site = Path(with_library["PYTHONPATH"])
    before = _torch_run(root, "left_out_mask.py", tmp_path, with_library)
    assert before[1] == 1  # the forward raises on the None mask and runs eagerly

    run = doctor_here("fix", str(root / "left_out_mask.py"), "--jobs", "1", "--apply", env=with_library)
    assert run.returncode == 0, run.stderr
    assert "[TCD403]: graph breaks 1 → 0" in run.stdout
    patched = (root / "left_out_mask.py").read_text()
    assert "        out = compiled(**inputs, attention_mask=torch.ones_like(inputs['input_ids']))\n" in patched
    assert not (site / "toylib" / "__init__.py.doctor-backup").exists()  # nothing outside the project touched
    assert (site / "toylib" / "__init__.py").read_text() == (PROGRAMS / "toylib" / "__init__.py").read_text()
    assert _torch_run(root, "left_out_mask.py", tmp_path, with_library) == (before[0], 0, 0)


def test_a_break_between_blocks_is_fixed_by_compiling_the_blocks_of_the_real_module_list(tmp_path):
    root = _project(tmp_path, "layer_skip.py")
    before = _torch_run(root, "layer_skip.py", tmp_path)
    # the data-dependent `if` between the blocks, in the loop torch cannot resume in; Block.forward compiles
    # again for the first block's input, which needs no grad (the later ones' do): a recompile no change removes
    assert before[1:] == (1, 1)

    run = doctor_here("fix", str(root / "layer_skip.py"), "--jobs", "1", "--apply", "--format", "json")
    assert run.returncode == 0, run.stderr
    assert run.json["patch"]["changes"] == [
        "`for block in model.layers: block.compile()` instead of compiling the model"
    ]
    patched = (root / "layer_skip.py").read_text()
    assert 'compiled = model\nfor block in compiled.layers:\n    block.compile(backend="eager")\n' in patched
    assert _torch_run(root, "layer_skip.py", tmp_path) == (before[0], 0, 1)


def _with_toy_library(tmp_path: Path) -> dict:
    """The toy library installed outside the project, as a package in site-packages is."""
    site = tmp_path / "site-packages"
    shutil.copytree(PROGRAMS / "toylib", site / "toylib")
    return {"PYTHONPATH": str(site)}


def test_an_argument_the_library_branches_on_is_left_out_only_where_the_results_stay_the_same(tmp_path):
    with_library = _with_toy_library(tmp_path)
    root = _project(tmp_path, "passed_mask.py")
    shutil.copy(PROGRAMS / "padded_mask.py", root / "padded_mask.py")
    _git(root, "add", ".")
    _git(root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "a padded mask too")
    before = _torch_run(root, "passed_mask.py", tmp_path, with_library)
    assert before[1] == 1  # the library's branch on the mask's values

    # an all-ones mask: leaving it out means the same
    run = doctor_here("fix", str(root / "passed_mask.py"), "--jobs", "1", "--apply", env=with_library)
    assert run.returncode == 0, run.stderr
    assert "        out = compiled(ids)\n" in (root / "passed_mask.py").read_text()
    assert _torch_run(root, "passed_mask.py", tmp_path, with_library) == (before[0], 0, 0)

    # a mask with padding: leaving it out changes the results, so nothing is written
    padded = (root / "padded_mask.py").read_text()
    run = doctor_here(
        "fix", str(root / "padded_mask.py"), "--jobs", "1", "--apply", "--format", "json", env=with_library
    )
    assert run.returncode == 1
    left_out = _trial(run.json, "made `out = compiled(ids)`")
    assert left_out["status"] == "output changed" and left_out["detail"].startswith("printed line 1 was")
    assert (root / "padded_mask.py").read_text() == padded


def test_regional_compilation_covers_both_lists_of_a_block_stack_class_used_twice(tmp_path):
    # torch records the break in the encoder's stack only; the decoder's is the same class, made in __init__ too
    root = _project(tmp_path, "twin_stacks.py")
    before = _torch_run(root, "twin_stacks.py", tmp_path)
    run = doctor_here("fix", str(root / "twin_stacks.py"), "--jobs", "1", "--apply")
    assert run.returncode == 0, run.stderr
    patched = (root / "twin_stacks.py").read_text()
    assert "for block in compiled.encoder.layers:\n" in patched and "for block in compiled.decoder.layers:\n" in patched
    after = _torch_run(root, "twin_stacks.py", tmp_path)
    assert after[:2] == (before[0], 0)


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
    told = [line for line in runs[0].stderr.splitlines() if line.startswith("doctor: trial ")]
    assert told and told[0].startswith("doctor: trial 1/") and "measured in" in told[0]
    assert not any("doctor: trial" in run.stderr for run in runs[1:])


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
