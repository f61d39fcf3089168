"""Fix text written for the situation it is printed in: an example that names a kind of code (a
mixture-of-experts router) only where the code is that kind."""

from __future__ import annotations

import pytest

from torchcompile_doctor.analysis.detectors.breaks import _router_facts
from torchcompile_doctor.analysis.findings import fill
from torchcompile_doctor.rules import rule

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
    text = fill(wording.fix, {"library": "transformers", **_router_facts(f"{function} {line}")})
    assert (ROUTER in text) is router and "{" not in text
