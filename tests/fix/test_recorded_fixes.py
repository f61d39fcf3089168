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
    # one deep model compiled whole: its blocks compiled one by one, judged by compile time
    "deep_encoder": (0, 'model = Encoder()\nfor block in model.layers:\n    block.compile(backend="aot_eager")\n'),
}


def _torch_counts(log: Path) -> tuple[int, int]:
    """Graph breaks (one per place) and recompiles, as torch's own TORCH_LOGS output names them."""
    torch_log = read_torch_log(log)
    return len({(b.file, b.line) for b in torch_log.breaks}), len(torch_log.recompiles)


def _chosen(name: str, built: list[Candidate]) -> tuple[list[Candidate], dict]:
    """The candidates of the patch the live run wrote, rebuilt today, and that run's trial of them together."""
    live = json.loads((RECORDED / f"{name}.fix.json").read_text(encoding="utf-8"))
    by_title = {candidate.title: candidate for candidate in built}
    changes = live["patch"]["changes"]
    assert set(changes) <= set(by_title), f"today's candidates: {sorted(by_title)}"
    (trial,) = [t for t in live["trials"] if t["change"] == " + ".join(changes)]
    return [by_title[change] for change in changes], trial


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_patch_doctor_fix_wrote_is_rebuilt_and_its_recorded_run_is_fixed(name):
    still_recompiles, holds = CASES[name]
    capture, fixed_capture = RECORDED / f"{name}.capture", FIXED / f"{name}.capture"
    program = project_of(capture, f"{name}.py", with_calls=True)
    chosen, live_trial = _chosen(name, candidates(reread(capture), program)[0])

    edits = [edit for candidate in chosen for edit in candidate.edits]
    (path,) = {edit.path for edit in edits}
    written = changed_texts(edits, {path: program.read(path) or ""})[path]
    assert written == (FIXED / f"{name}.py").read_text(encoding="utf-8")
    assert holds in written
    recorded_file = [text for file, text in snapshot_files(fixed_capture).items() if Path(file).name == path.name]
    assert recorded_file == [written]  # the recording is of this very file

    # torch's own log of each file run plainly: the breaks gone, the recompiles the patch removes gone (a change
    # judged by compile time has none to remove), the same lines printed
    by_compile_time = any(candidate.by_compile_time for candidate in chosen)
    before_breaks, before_recompiles = _torch_counts(RECORDED / f"{name}.torch_logs.txt")
    assert by_compile_time or before_breaks + before_recompiles > still_recompiles
    assert _torch_counts(FIXED / f"{name}.torch_logs.txt") == (0, still_recompiles)
    printed = (RECORDED / f"{name}.stdout.txt").read_text(encoding="utf-8")
    assert printed and (FIXED / f"{name}.stdout.txt").read_text(encoding="utf-8") == printed

    verdict = judge(
        run_of(capture, RECORDED / f"{name}.stdout.txt"),
        run_of(fixed_capture, FIXED / f"{name}.stdout.txt"),
        by_compile_time=by_compile_time,
        aimed_at={code for candidate in chosen for code in candidate.codes},
    )
    assert str(verdict.outcome) == live_trial["status"], verdict
