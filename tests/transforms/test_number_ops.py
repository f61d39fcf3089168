"""A changing float that reaches an op needing a Python number (`F.huber_loss`'s `delta`): the candidate writes the
op with torch ops and passes the value as a tensor; a tensor alone is not offered (the op would break on it). A
recorded run (tests/data/number_ops) re-read in-process."""

from __future__ import annotations

from support.captures import reread
from support.fix_recordings import project_of
from support.paths import DATA

from torchcompile_doctor.fix.candidates import candidates
from torchcompile_doctor.patches.edits import edit_source

CAPTURE = DATA / "number_ops" / "huber_delta.capture"


def test_a_loss_s_changing_delta_is_written_out_with_torch_ops_and_passed_as_a_tensor():
    report, program = reread(CAPTURE), project_of(CAPTURE)
    floats = next(f for f in report.findings if f.code == "TCD203")
    assert floats.fix is not None
    # the report prints the op written out, not `torch.tensor(...)` alone (the op reads a tensor with `.item()`)
    assert floats.fix.rewrites[0].transform == "op_written_out"
    assert all(r.transform != "tensor_argument" for r in floats.fix.rewrites)
    built, _ = candidates(report, program)
    (written_out,) = [c for c in built if c.codes == ("TCD203",)]
    (path,) = {e.path for e in written_out.edits}
    written = edit_source(program.read(path) or "", [e.edit for e in written_out.edits])
    assert 'def huber_loss(input, target, reduction="mean", delta=1.0):' in written
    assert "    return huber_loss(pred, target, delta=delta)" in written
    assert "robust_loss(pred, target, torch.tensor(2.0 - step / 8))" in written
    compile(written, str(path), "exec")  # the written file parses
