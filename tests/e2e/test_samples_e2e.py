"""End to end: every sample model's recorded capture (tests/data/samples/NAME.capture, recorded with
`python tests/support/recording.py record sample_models/NAME.py --into tests/data/samples/NAME.capture`), re-read
as `doctor report` re-reads it and checked against sample_models/expected.yaml (ground truth taken from
TORCH_LOGS=graph_breaks,recompiles runs, see that file's header). That a fresh recording finds the same is
tests/capture/test_recapture.py's job."""

from __future__ import annotations

import json

import pytest
import yaml
from support.captures import SAMPLE_CAPTURES, reread
from support.ground_truth import check_against_ground_truth
from support.paths import SAMPLES
from support.recording import RECORDING

from torchcompile_doctor.renderers import render

EXPECTED = yaml.safe_load((SAMPLES / "expected.yaml").read_text())
# perf hints only appear on a cold inductor cache; tested in tests/capture/test_inductor.py
SCRIPTS = sorted(name for name in EXPECTED if name != "perf_hint_inductor.py")


def test_every_sample_is_recorded():
    assert sorted(p.name.removesuffix(".capture") + ".py" for p in SAMPLE_CAPTURES.glob("*.capture")) == SCRIPTS


@pytest.mark.parametrize("script", SCRIPTS)
def test_sample(script):
    expected = EXPECTED[script]
    capture = SAMPLE_CAPTURES / script.replace(".py", ".capture")
    recorded = json.loads((capture / RECORDING).read_text())
    assert recorded["exit_code"] == (0 if expected["exit_code"] == 0 else 3)
    report = json.loads(render(reread(capture), "json"))
    findings = report["findings"]

    check_against_ground_truth(report, expected)

    # ranking: severities never increase down the list
    order = ["critical", "high", "medium", "low", "info"]
    ranks = [order.index(f["severity"]) for f in findings]
    assert ranks == sorted(ranks)
    assert [f["rank"] for f in findings] == list(range(1, len(findings) + 1))
    if expected["exit_code"] != 0:
        assert findings[0]["kind"] in ("target_error", "compile_failure")
        assert any(f["kind"] == "target_error" for f in findings)
