"""The probe pass of the fix benchmark (issue 33): a `torch.compiler.disable`d helper called in a compiled forward
is skipped while Dynamo traces, and a file-system probe read in forward (`os.path.exists`) is read once; each from a
recorded run re-read in-process (tests/data/engine/README.md), with the cases where no rewrite may be made."""

from __future__ import annotations

from support.captures import reread
from support.fix_recordings import project_of
from support.paths import DATA

from torchcompile_doctor.fix.candidates import candidates
from torchcompile_doctor.model.edits import WrapStatement
from torchcompile_doctor.patches.edits import edit_source
from torchcompile_doctor.rules.catalogue import load_catalogue
from torchcompile_doctor.transforms.engine import Built, Dropped
from torchcompile_doctor.transforms.registry import build_named
from torchcompile_doctor.transforms.site import Site

ENGINE = DATA / "engine"

PROBE = (
    "import os\n\nimport torch\n\n\ndef f(x, path):\n"
    '    if os.path.exists("debug.flag"):\n        x = x.clamp(-1, 1)\n    return x\n'
)


def test_a_disabled_helper_called_in_a_compiled_forward_is_skipped_while_dynamo_traces():
    """`record_stats(...)` (a `torch.compiler.disable`d helper) after each layer of a loop: the frame ran eagerly
    (TCD403 through TCD112), and no candidate was built; the call is now guarded at its line."""
    capture = ENGINE / "disabled_helper.capture"
    report, program = reread(capture), project_of(capture, with_calls=True)
    (fallback,) = [f for f in report.findings if f.code == "TCD403"]
    assert fallback.fix is not None and "guard_is_compiling" in fallback.fix.transforms
    built, _ = candidates(report, program)
    guarded = [c for c in built if any(isinstance(e.edit, WrapStatement) for e in c.edits)]
    assert guarded, [c.title for c in built]
    (edit,) = guarded[0].edits
    written = edit_source(program.read(edit.path) or "", [edit.edit])
    assert '            if not torch.compiler.is_compiling():\n                record_stats(f"layer{i}", x)' in written


def test_a_disabled_function_of_a_library_is_never_rewritten():
    """A library marks its function disabled on purpose: the rule names no transform for a library's line."""
    (rule,) = [r for r in load_catalogue() if r.code == "TCD112"]
    assert "guard_is_compiling" in rule.transforms and rule.transforms_in_library == ()


def test_a_path_probe_in_forward_is_read_once_at_import():
    capture = ENGINE / "path_probe.capture"
    report, program = reread(capture), project_of(capture, with_calls=True)
    (skipped,) = [f for f in report.findings if f.code == "TCD113"]
    built, _ = candidates(report, program)
    hoisted = [c for c in built if c.codes == ("TCD113",) and "EXISTS" in str(c.edits)]
    assert hoisted, [c.title for c in built]
    written = edit_source(program.read(hoisted[0].edits[0].path) or "", [e.edit for e in hoisted[0].edits])
    assert 'EXISTS = os.path.exists("clamp_activations.flag")' in written and "        if EXISTS:" in written
    assert skipped.fix is not None


def test_hoist_probe_reads_a_constant_path_once():
    made = build_named("hoist_probe", Site("m.py", PROBE, 7))
    assert isinstance(made, Built)
    written = edit_source(PROBE, list(made.edits))
    assert 'EXISTS = os.path.exists("debug.flag")\n\n\ndef f' in written and "    if EXISTS:\n" in written


def test_hoist_probe_leaves_a_path_the_call_passes_in():
    """`os.path.exists(path)` on the function's parameter may differ on each call: not a one-time probe."""
    made = build_named("hoist_probe", Site("m.py", PROBE.replace('"debug.flag"', "path"), 7))
    assert isinstance(made, Dropped)


def test_a_phase_loop_calls_its_compiled_method_only_with_grad_on():
    """`torch.compile(self.compute_loss)` called on one line under `torch.set_grad_enabled(phase == "train")`: the
    callers of a compiled bound method are recorded (the line in `run_phase`, not the module's call of it), and the
    call there chooses the eager method when grad is off; making that line eager (train too) is the other rewrite,
    which compiles nothing and which the judge refuses."""
    capture = ENGINE / "grad_phases.capture"
    report, program = reread(capture), project_of(capture, with_calls=True)
    (finding,) = [f for f in report.findings if f.code == "TCD206"]
    assert finding.fix is not None and finding.fix.rewrite_at is not None and finding.fix.rewrite_at.line == 16
    by_name = {r.transform: r for r in finding.fix.rewrites}
    chosen = by_name["eager_call_without_grad"]
    assert chosen.after == "loss = (self.loss_fn if torch.is_grad_enabled() else self.compute_loss)(x, y)"
    (edit,) = chosen.edits
    written = edit_source(program.read(edit.path) or "", [edit.edit])
    assert chosen.after in written and by_name["eager_call"].after == "loss = self.compute_loss(x, y)"
