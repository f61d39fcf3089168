"""`doctor fix` on programs of tests/fix/programs, recorded once (tests/fix/recorded/, its README says how): for
each, the patch the live `doctor fix` chose (NAME.fix.json) is rebuilt in-process from the recorded run of the
program (NAME.capture): today's engine makes the same edits, which give fixed/NAME.py byte for byte; the recording
of that very file, run plainly under torch's own TORCH_LOGS, holds no graph break (and no recompile the patch
removes) and printed what the program printed; and the judge, given the two recorded runs, says what the live run
said. What only a live run proves (trials in a copy, the combination, --apply, one patch on three runs, a patch
of the user's) is in test_doctor_fix.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.captures import reread
from support.fix_recordings import project_of, run_of, snapshot_files
from support.paths import TESTS
from support.torch_logs import read_torch_log

from torchcompile_doctor.fix.candidates import Candidate, candidates
from torchcompile_doctor.fix.judge import judge
from torchcompile_doctor.fix.trials import changed_texts
from torchcompile_doctor.model.trial import Outcome, Verdict

RECORDED = TESTS / "fix" / "recorded"
FIXED = RECORDED / "fixed"

# each program: the recompiles torch still logs after the patch, and what the patch must hold
CASES = {
    # a whole training step compiled: backward and the optimizer calls moved after the step's call
    "train_step": (
        0,
        "    step_loss = train_step(x, y)\n    step_loss.backward()\n    opt.step()\n    opt.zero_grad()\n",
    ),
    # the user's `values` is a list (`mark_dynamic(values, 0)` would raise): the rewrite marks what the call passes
    "rollouts": (0, "    values_tensor = torch.stack(values)\n"),
    # a dimension torch bounded to a range: unbacked, with the input tied to it
    "served_batches": (
        0,
        "        torch._dynamo.decorators.mark_unbacked(tokens, 0)\n"
        "        torch._dynamo.decorators.mark_unbacked(lengths, 0)\n"
        "        logits = compiled(tokens, lengths)\n",
    ),
    # a break between blocks, in a loop torch cannot resume in: the blocks of the real module list compiled; the
    # first block's input needs no grad (the later ones' do), a recompile no change removes
    "layer_skip": (1, 'compiled = model\nfor block in compiled.layers:\n    block.compile(backend="eager")\n'),
    # torch records the break in the encoder's stack only; the decoder's is the same class, compiled too
    "twin_stacks": (
        1,
        'for block in compiled.encoder.layers:\n    block.compile(backend="eager")\n'
        "for block in compiled.decoder.layers:\n",
    ),
    # the library fills a left-out mask only when Dynamo is not tracing: the mask it would make passed at the call
    "left_out_mask": (0, "        out = compiled(**inputs, attention_mask=torch.ones_like(inputs['input_ids']))\n"),
    # the library branches on the mask's values: an all-ones mask left out, which means the same
    "passed_mask": (0, "        out = compiled(ids)\n"),
    # one deep model compiled whole: its blocks compiled one by one, judged by compile time
    "deep_encoder": (0, 'model = Encoder()\nfor block in model.layers:\n    block.compile(backend="aot_eager")\n'),
}


def _torch_counts(log: Path) -> tuple[int, int]:
    """Graph breaks (one per place) and recompiles, as torch's own TORCH_LOGS output names them."""
    torch_log = read_torch_log(log)
    return len({(b.file, b.line) for b in torch_log.breaks}), len(torch_log.recompiles)


def _live(name: str) -> dict:
    return json.loads((RECORDED / f"{name}.fix.json").read_text(encoding="utf-8"))


def _rebuilt(name: str, changes: list[str]) -> tuple[list[Candidate], str]:
    """The live run's `changes`, rebuilt today from the program's recorded run, and the text of the one file they
    write together (which must be fixed/NAME.py, the file whose plain run was recorded)."""
    capture = RECORDED / f"{name}.capture"
    program = project_of(capture, f"{name}.py", with_calls=True)
    by_title = {candidate.title: candidate for candidate in candidates(reread(capture), program)[0]}
    assert set(changes) <= set(by_title), f"today's candidates: {sorted(by_title)}"
    chosen = [by_title[change] for change in changes]
    edits = [edit for candidate in chosen for edit in candidate.edits]
    (path,) = {edit.path for edit in edits}  # the program's own file, nothing outside the project
    written = changed_texts(edits, {path: program.read(path) or ""})[path]
    assert written == (FIXED / f"{name}.py").read_text(encoding="utf-8")
    recorded = snapshot_files(FIXED / f"{name}.capture")
    assert [text for file, text in recorded.items() if Path(file).name == path.name] == [written]  # of this very file
    return chosen, written


def _judged(name: str, chosen: list[Candidate]) -> Verdict:
    """The judge of doctor fix, given the program's recorded run and the patched file's."""
    return judge(
        run_of(RECORDED / f"{name}.capture", RECORDED / f"{name}.stdout.txt"),
        run_of(FIXED / f"{name}.capture", FIXED / f"{name}.stdout.txt"),
        by_compile_time=any(candidate.by_compile_time for candidate in chosen),
        aimed_at={code for candidate in chosen for code in candidate.codes},
    )


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_patch_doctor_fix_wrote_is_rebuilt_and_its_recorded_run_is_fixed(name):
    still_recompiles, holds = CASES[name]
    live = _live(name)
    changes = live["patch"]["changes"]
    chosen, written = _rebuilt(name, changes)
    assert holds in written

    # torch's own log of each file run plainly: the breaks gone, the recompiles the patch removes gone (a change
    # judged by compile time has none to remove), the same lines printed
    before_breaks, before_recompiles = _torch_counts(RECORDED / f"{name}.torch_logs.txt")
    by_compile_time = any(candidate.by_compile_time for candidate in chosen)
    assert by_compile_time or before_breaks + before_recompiles > still_recompiles
    assert _torch_counts(FIXED / f"{name}.torch_logs.txt") == (0, still_recompiles)
    printed = (RECORDED / f"{name}.stdout.txt").read_text(encoding="utf-8")
    assert printed and (FIXED / f"{name}.stdout.txt").read_text(encoding="utf-8") == printed

    (live_trial,) = [t for t in live["trials"] if t["change"] == " + ".join(changes)]
    verdict = _judged(name, chosen)
    assert str(verdict.outcome) == live_trial["status"], verdict


def test_an_argument_the_library_branches_on_is_not_left_out_where_the_results_change():
    """`passed_mask` (a CASE) passes an all-ones mask: leaving it out means the same, and is the patch. Here the
    mask has padding: leaving it out changes what the program prints, and the judge refuses it, saying where."""
    live = _live("padded_mask")
    assert live["patch"] is None
    (left_out,) = [t for t in live["trials"] if t["change"].endswith("made `out = compiled(ids)` (padded_mask.py:15)")]
    chosen, written = _rebuilt("padded_mask", [left_out["change"]])
    assert "        out = compiled(ids)\n" in written
    assert _torch_counts(FIXED / "padded_mask.torch_logs.txt") == (0, 0)  # the break is gone, but:
    verdict = _judged("padded_mask", chosen)
    assert verdict.outcome is Outcome.OUTPUT_CHANGED and str(verdict.outcome) == left_out["status"]
    assert verdict.detail == left_out["detail"] and verdict.detail.startswith("printed line 1 was")
