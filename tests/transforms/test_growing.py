"""A tensor that grows each step (a history or cache grown by `torch.cat`) and reaches compiled code: the growing
dimension marked at the line that calls the compiled function, unbacked where torch specialized its first size
(0 or 1). A recorded run (tests/data/growing) re-read in-process."""

from __future__ import annotations

from support.captures import reread
from support.fix_recordings import project_of
from support.paths import DATA

from torchcompile_doctor.fix.candidates import candidates
from torchcompile_doctor.patches.edits import edit_source

CAPTURE = DATA / "growing" / "history_cat.capture"


def test_a_history_grown_from_one_row_is_marked_unbacked_at_the_call():
    report, program = reread(CAPTURE), project_of(CAPTURE)
    shape = next(f for f in report.findings if f.code == "TCD301")
    assert "history.shape[0]: 1 → 2" in shape.why
    built, _ = candidates(report, program)
    (marked,) = [c for c in built if c.codes == ("TCD301",)]
    (edit,) = marked.edits
    written = edit_source(program.read(edit.path) or "", [edit.edit]).splitlines()
    # before the call, inside the loop, on the tensor as it is passed: each step's new history is marked
    assert written[17:20] == [
        "    for _ in range(10):",
        "        torch._dynamo.decorators.mark_unbacked(history, 0)",
        "        state = torch.tanh(attend(state, history))",
    ]
    assert "mark_dynamic" not in "\n".join(written)


def test_a_module_s_kv_caches_grown_from_empty_are_marked_unbacked_before_the_compiled_call():
    capture = DATA / "growing" / "kv_cache_attr.capture"
    program = project_of(capture)
    report = reread(capture)
    cache = next(f for f in report.findings if f.code == "TCD303")
    assert "self.k_cache.shape[0]: 0 → 1 → 2" in cache.why
    built, _ = candidates(report, program)
    (marked,) = [c for c in built if c.codes == ("TCD303",)]
    (edit,) = marked.edits
    written = edit_source(program.read(edit.path) or "", [edit.edit]).splitlines()
    # both caches (tied by the attention: one marked alone leaves the other's recompiles), at the call
    assert written[24:28] == [
        "    for _ in range(12):",
        "        torch._dynamo.decorators.mark_unbacked(attn.k_cache, 0)",
        "        torch._dynamo.decorators.mark_unbacked(attn.v_cache, 0)",
        "        tok = step(tok)",
    ]


def test_a_registered_buffer_grown_on_dim_1_is_marked_on_the_instance_with_buffer_shapes_made_dynamic():
    capture = DATA / "growing" / "context_buffer.capture"
    program, report = project_of(capture), reread(capture)
    shape = next(f for f in report.findings if f.code in ("TCD301", "TCD303"))
    assert "self.context" in shape.why  # torch's guard source: L['self']._buffers['context']
    built, _ = candidates(report, program)
    (marked,) = [c for c in built if any("mark_unbacked" in getattr(e.edit, "code", "") for e in c.edits)]
    (path,) = {e.path for e in marked.edits}
    written = edit_source(program.read(path) or "", [e.edit for e in marked.edits]).splitlines()
    # the buffer as the caller reaches it (the compiled module's instance), on the dimension it grows along, and
    # the setting without which torch keeps a buffer's shape static whatever its marking
    assert written[:2] == ["import torch", "torch._dynamo.config.force_parameter_static_shapes = False"]
    assert written[-3:-1] == [
        "        torch._dynamo.decorators.mark_unbacked(model.context, 1)",
        "        x = compiled(x)",
    ]
