"""What a library branches on around a break in the code the user compiled: the keyword the user's call passes
that takes the branch left out, and the attribute whose None takes it set, before the model is compiled, to the
value the library falls back to. On a recorded run (tests/data/library_branches) re-read in-process."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from support.captures import reread
from support.fix_recordings import project_of
from support.paths import DATA

from torchcompile_doctor.events.model import BackendUse, CallSite
from torchcompile_doctor.fix.candidates import Program, candidates
from torchcompile_doctor.model.edits import InsertBefore, ReplaceStatement
from torchcompile_doctor.model.report import Location
from torchcompile_doctor.patches.edits import edit_source
from torchcompile_doctor.transforms.library_arguments import branch_argument_left_out, fallback_attribute_set

CAPTURE = DATA / "library_branches" / "library_branches.capture"


def _finding_at(line: int):  # type: ignore[no-untyped-def]
    return next(f for f in reread(CAPTURE).findings if f.location is not None and f.location.line == line)


def test_the_keyword_the_library_branches_on_is_left_out_of_the_user_s_call():
    program = project_of(CAPTURE, "library_branches.py", with_calls=True)
    finding = _finding_at(24)  # `warnings.warn(...)` under `if return_scores:`
    made = branch_argument_left_out(finding.location, program)
    assert not isinstance(made, str)
    (edit,) = made.edits
    assert edit.path.name == "library_branches.py"
    assert edit.edit == ReplaceStatement(13, "hidden, _ = model(ids)")
    assert made.title == (
        "`return_scores=` left out of the call at library_branches.py:13 (the default of `Encoder.forward`, "
        "`False`, skips the branch at minilib.py:23)"
    )
    # the `if` around the other warning reads an attribute, not an argument
    assert branch_argument_left_out(_finding_at(26).location, program) == (
        "no `if` around the break reads an argument that has a default"
    )


def test_the_attribute_left_none_is_set_to_the_value_the_library_falls_back_to_before_compiling():
    program = project_of(CAPTURE, "library_branches.py", with_calls=True)
    made = fallback_attribute_set(_finding_at(26).location, program)
    assert not isinstance(made, str)
    (edit,) = made.edits
    assert edit.edit == InsertBefore(9, "encoder.config.pad_token_id = -1")
    written = edit_source(program.read(edit.path) or "", [edit.edit]).splitlines()
    assert written[8:10] == ["encoder.config.pad_token_id = -1", 'model = torch.compile(encoder, backend="eager")']
    assert fallback_attribute_set(_finding_at(24).location, program) == (
        "no `if self.<attribute> is None:` around the break gives a value its `else` reads from the attribute"
    )


def test_a_break_outside_any_branch_or_function_gives_no_library_edit():
    program = project_of(CAPTURE, "library_branches.py", with_calls=True)
    minilib = next(str(p) for p in (Path(c.function_file) for c in program.compile_calls if c.function_file))
    outside = Location(minilib, 30, "Encoder.forward")  # the line after the branches
    assert branch_argument_left_out(outside, program) == "no `if` in `Encoder.forward` holds the break"
    assert fallback_attribute_set(Location(minilib, 1, "?"), program) == "the break is in no function"


def test_both_are_candidates_of_doctor_fix_for_the_findings_that_name_them():
    report, program = reread(CAPTURE), project_of(CAPTURE, "library_branches.py", with_calls=True)
    built, _ = candidates(report, program)
    titles = [c.title for c in built if c.codes == ("TCD113",)]
    assert (
        "`encoder.config.pad_token_id = -1` before the model is compiled (the value `Encoder.forward` uses when "
        "it is None)" in titles
    )
    assert any(t.startswith("`return_scores=` left out of the call at library_branches.py:13") for t in titles)
    # a finding whose rule does not name them gets neither
    other = replace(
        report,
        findings=tuple(replace(f, code="TCD104", fix=replace(f.fix, transforms=())) for f in report.findings if f.fix),
    )
    assert not [c for c in candidates(other, program)[0] if "left out of the call" in c.title]


LIBRARY = """\
import logging

logger = logging.getLogger(__name__)


class Block:
    def forward(self, h, use_cache=False):
        if use_cache:
            logger.warning("use_cache is ignored")
        if self.config.pad_token_id is None:
            logger.warning("pad_token_id is not set")
            pad = -1
        else:
            pad = self.config.pad_token_id
        return h + pad


class Model:
    def forward(self, ids, use_cache=False):
        return self.block(ids, use_cache=use_cache)
"""
MAIN = """\
import torch

net = Model(Config())
model = torch.compile(net)
out = model(ids, use_cache=True)
"""


def test_an_inner_library_function_s_argument_and_attribute_are_changed_at_the_model_the_user_compiles(tmp_path):
    # the break is in `Block.forward`, which the compiled `Model.forward` calls: the user's call and compile are
    # the model's
    lib, main = tmp_path / "lib.py", tmp_path / "main.py"
    texts = {lib: LIBRARY, main: MAIN}
    compiled = BackendUse("inductor", "inductor", "Model", "module", str(main), 4, None, None, str(lib), 19)
    call = CallSite(str(lib), 19, "Model.forward", str(main), 5, "<module>")
    program = Program(tmp_path, (compiled,), (call,), texts.get)
    left_out = branch_argument_left_out(Location(str(lib), 9, "Block.forward"), program)
    assert not isinstance(left_out, str)
    assert [e.edit for e in left_out.edits] == [ReplaceStatement(5, "out = model(ids)")]
    attribute = fallback_attribute_set(Location(str(lib), 11, "Block.forward"), program)
    assert not isinstance(attribute, str)
    assert [e.edit for e in attribute.edits] == [InsertBefore(4, "net.config.pad_token_id = -1")]
