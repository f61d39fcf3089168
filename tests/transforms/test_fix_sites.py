"""The fix engine on recorded runs (tests/data/engine/): the report's before/after is the hunk of the edit
`doctor fix` measures, a keyword's value is wrapped (never its name), the cast goes at the odd call, and a
candidate whose edit cannot be made is dropped with its reason while the others are kept."""

from __future__ import annotations

import ast
from dataclasses import replace

from support.captures import reread
from support.fix_recordings import project_of
from support.paths import DATA

from torchcompile_doctor.fix.candidates import candidates
from torchcompile_doctor.model.edits import FileEdit, ReplaceStatement
from torchcompile_doctor.model.experiment import Regional
from torchcompile_doctor.model.report import Report
from torchcompile_doctor.patches.edits import edit_source
from torchcompile_doctor.transforms.engine import hunk

ENGINE = DATA / "engine"


def _finding(report: Report, code: str):  # type: ignore[no-untyped-def]
    return next(f for f in report.findings if f.code == code)


def test_a_float_passed_by_keyword_is_wrapped_as_a_tensor_keeping_its_keyword():
    report = reread(ENGINE / "keyword_scale.capture")
    fix = _finding(report, "TCD203").fix
    assert fix.before == "out = cmodel(x, scale=float(step + 1))"
    assert fix.after == "out = cmodel(x, scale=torch.tensor(float(step + 1)))"
    ast.parse(fix.after)


def test_the_candidate_measured_is_the_edit_the_report_prints():
    capture = ENGINE / "keyword_scale.capture"
    report, program = reread(capture), project_of(capture)
    fix = _finding(report, "TCD203").fix
    built, refused = candidates(report, program)
    (candidate,) = [c for c in built if c.codes == ("TCD203",)]
    assert candidate.edits == fix.edits
    (edit,) = candidate.edits
    written = edit_source(program.read(edit.path) or "", [edit.edit])
    assert fix.after in written.splitlines()[edit.edit.line - 1]  # type: ignore[union-attr]
    assert not [r for r in refused if "parse" in r.reason]


def test_a_candidate_whose_edit_does_not_parse_is_dropped_with_why_and_the_others_are_kept():
    """Bug 3: `torch.tensor(scale)=float(step + 1)` made `doctor fix` die with ParserSyntaxError, losing the
    print fix too. Now that candidate is refused with its reason and the others are measured."""
    capture = ENGINE / "keyword_scale.capture"
    report, program = reread(capture), project_of(capture)
    broken = []
    for finding in report.findings:
        if finding.code == "TCD203" and finding.fix is not None:
            (rewrite,) = finding.fix.rewrites
            bad = ReplaceStatement(15, "out = cmodel(x, torch.tensor(scale)=float(step + 1))")
            broken_rewrite = replace(rewrite, edits=(FileEdit(rewrite.edits[0].path, bad),))
            finding = replace(finding, fix=replace(finding.fix, rewrites=(broken_rewrite,)))
        broken.append(finding)
    built, refused = candidates(replace(report, findings=tuple(broken)), program)
    (dropped,) = [r for r in refused if "parse" in r.reason]
    assert dropped.codes == ("TCD203",) and "keyword_scale.py: code that does not parse" in dropped.reason
    assert any(c.codes == ("TCD101",) and "is_compiling" in c.title for c in built)
    assert not any(c.codes == ("TCD203",) and c.title.startswith("`out") for c in built)


def test_a_dtype_recompile_is_cast_at_the_odd_call_and_is_one_finding_with_its_resume():
    report = reread(ENGINE / "dtype_odd_call.capture")
    dtype = [f for f in report.findings if f.code == "TCD201"]
    assert len(dtype) == 1  # `f` and `f (after line 9)` share the cause
    (finding,) = dtype
    assert finding.fix is not None
    assert finding.fix.before == "c = f(x64)" and finding.fix.after == "c = f(x64.to(torch.float32))"
    assert finding.count == 2  # the resume's recompile counted in it


def test_regional_compilation_is_offered_for_the_users_blocks_never_for_torch_nn_built_ins():
    """Bug 5: `for block in model.conv: block.compile()` over nn.Conv1d blocks compiled nothing at all (graphs
    8 -> 0), which the doctor called a fix."""
    builtin = reread(ENGINE / "builtin_blocks.capture")
    own = reread(ENGINE / "user_blocks.capture")
    assert not [f for f in builtin.findings if f.fix is not None and isinstance(f.fix.experiment, Regional)]
    assert [f for f in own.findings if f.fix is not None and isinstance(f.fix.experiment, Regional)]


def test_a_compiled_network_with_its_post_processing_is_offered_split():
    """Bug 6: moving the post-processing out of the compiled function was never offered."""
    capture = ENGINE / "detector.capture"
    report, program = reread(capture), project_of(capture)
    fix = _finding(report, "TCD108").fix
    assert fix is not None and "def _detect_network(x, threshold):" in (fix.after or "")
    built, _ = candidates(report, program)
    (split,) = [c for c in built if "the network compiled" in c.title]
    (edit,) = split.edits
    written = edit_source(program.read(edit.path) or "", [edit.edit])
    tree = ast.parse(written)
    functions = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}
    assert list(functions) == ["_detect_network", "detect"]
    assert [ast.unparse(d) for d in functions["_detect_network"].decorator_list] == ["torch.compile(backend='eager')"]
    assert functions["detect"].decorator_list == []  # the post-processing runs eagerly


def test_every_before_and_after_printed_is_the_hunk_of_the_edit_written():
    """Issue 33: the report's before/after is byte-for-byte the hunk of the file `doctor fix` writes."""
    checked = 0
    for capture in sorted(ENGINE.glob("*.capture")):
        report, program = reread(capture), project_of(capture)
        for finding in report.findings:
            for rewrite in finding.fix.rewrites if finding.fix is not None else ():
                (path,) = {e.path for e in rewrite.edits}
                source = program.read(path) or ""
                written = hunk(source, edit_source(source, [e.edit for e in rewrite.edits]))
                assert (written.before, written.after) == (rewrite.before, rewrite.after)
                checked += 1
    assert checked >= 5
