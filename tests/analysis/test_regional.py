"""Regional compilation offered where it helps, at the model's real attribute path, on recorded captures: a
library's branch between its repeated blocks (BART's layerdrop test in its loop over `self.layers`) gets
`for block in model.encoder.layers: block.compile()` (measured on the dev set's BART in train mode: 5 graph
breaks -> 0), and a break inside a block (an experts loop in each block) gets no regional advice, nor does a
break that passes through no loop over blocks; no rule text carries a made-up attribute path."""

from __future__ import annotations

from support.captures import reread
from support.paths import RULES

from torchcompile_doctor.analysis.regional import python_path
from torchcompile_doctor.model.report import Kind
from torchcompile_doctor.rules import load_catalogue

REGIONAL = "compile the repeated blocks instead of the whole model"


def _fixes(case: str) -> dict[str, str]:
    report = reread(RULES / "TCD403" / f"{case}.capture")
    return {f.location.function: f.fix.summary for f in report.findings if f.kind == Kind.FRAME_SKIPPED and f.fix}


def test_a_break_between_blocks_gets_the_real_module_lists():
    fixes = _fixes("layer_loop_branch")
    assert "`for block in model.encoder.layers: block.compile()`" in fixes["BartEncoder.forward"]
    assert "`for block in model.decoder.layers: block.compile()`" in fixes["BartDecoder.forward"]
    # a break in the library's wrapper code, outside any loop over the blocks: nothing we can stand behind
    assert not any(REGIONAL in fix for function, fix in fixes.items() if "<dictcomp>" in function)


def test_a_break_inside_the_repeated_block_gets_no_regional_advice():
    fixes = _fixes("experts_in_blocks")
    assert fixes and not any(REGIONAL in fix or "block.compile()" in fix for fix in fixes.values())


def test_no_rule_text_names_a_generic_attribute_path():
    for rule in load_catalogue():
        for text in [rule.fix, *(w.fix for w in rule.wordings)]:
            assert "model.encoder.layers" not in (text or ""), rule.code


def test_a_module_path_reads_as_python():
    assert python_path("encoder.layers") == "model.encoder.layers"
    assert python_path("1.layers") == "model[1].layers"
