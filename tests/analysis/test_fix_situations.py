"""Fix text written for the situation it is printed in: an example that names a kind of code (a
mixture-of-experts router, transformers' `generate()`) only where the code is that kind; a Dynamo internal
error called so, at the line torch was tracing; torch's hints kept apart."""

from __future__ import annotations

import pytest
from support.captures import reread
from support.paths import RULES

from torchcompile_doctor.analysis.detectors.breaks import BreakFacts, _router_example, _sentences
from torchcompile_doctor.rules import rule
from torchcompile_doctor.rules.facts import fill

ROUTER = "mixture-of-experts router"


@pytest.mark.parametrize(
    ("function", "line", "router"),
    [  # lines of transformers 5.5.4 where TCD108 fired on the dev set (issue #25)
        ("DbrxExperts.forward", "expert_hit = torch.greater(expert_mask.sum(dim=(-1, -2)), 0).nonzero()", True),
        (
            "SwitchTransformersTop1Router.forward",
            "router_probs = self._compute_router_probabilities(x)",
            True,
        ),
        ("VideoLlama3VisionRotaryEmbedding.forward", "seq = torch.arange(h * w, device=self.inv_freq.device)", False),
        ("Spline.mask", "inside = (x >= knots[:-1]) & (x < knots[1:])", False),
    ],
)
def test_the_router_example_only_where_the_code_routes_to_experts(function, line, router):
    wording = next(w for w in rule("TCD108").wordings if "{router_loop}" in w.fix)
    loop, rewrite = _router_example(f"{function} {line}")
    text = fill(wording.fix, BreakFacts(library="transformers", router_loop=loop, router_rewrite=rewrite))
    assert (ROUTER in text) is router and "{" not in text


def test_a_dynamo_internal_error_is_called_so_at_the_line_torch_was_tracing():
    report = reread(RULES / "TCD405" / "internal_error.capture")
    [failure] = [f for f in report.findings if f.code == "TCD401"]
    assert "an internal error of Dynamo, `PendingUnbackedSymbolNotFound`" in failure.why
    assert "fullgraph=True, or a backend error" not in failure.why
    [crash] = [f for f in report.findings if f.code == "TCD405"]
    # torch's `from user code:` line, not the Python traceback's call of the compiled function (line 16)
    assert crash.location is not None and crash.location.line == 13 and crash.location.function == "pool"
    assert crash.evidence.torch_text and "from user code" not in crash.evidence.torch_text


def test_torchs_hints_stay_separate_sentences():
    text = _sentences(["Use `torch.cond` to express dynamic control flow", "This graph break is fundamental."])
    assert text == "Use `torch.cond` to express dynamic control flow. This graph break is fundamental."


def test_the_method_that_bypassed_the_compiled_module_is_the_one_the_program_calls():
    [finding] = [f for f in reread(RULES / "TCD407" / "nothing_compiled.capture").findings if f.code == "TCD407"]
    assert "such as `model.generate()`" in finding.why and "`generate()` included" in finding.fix.summary


def test_generate_advice_only_for_transformers_generate():
    wordings = [w for w in rule("TCD301").wordings if "library_call" in w.needs]
    for wording in wordings:
        about_generate = "generate_call" in wording.needs
        assert ("generate()" in wording.fix) is about_generate, wording.needs
        assert ("generate()" in wording.why) is about_generate or "switched" not in wording.needs


def test_a_break_on_an_assert_says_python_O_strips_it():
    [finding] = [f for f in reread(RULES / "TCD104" / "item_assert.capture").findings if f.code == "TCD104"]
    assert finding.fix is not None and "`python -O` strips asserts" in finding.fix.summary
    others = reread(RULES / "TCD104" / "item.capture").findings
    assert all("python -O" not in (f.fix.summary if f.fix else "") for f in others)
