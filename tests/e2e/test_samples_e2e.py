"""End to end: the real CLI on every sample model, checked against sample_models/expected.yaml
(ground truth taken from TORCH_LOGS=graph_breaks,recompiles runs, see that file's header)."""

from __future__ import annotations

import pytest
import yaml
from support.ground_truth import check_against_ground_truth
from support.paths import SAMPLES

EXPECTED = yaml.safe_load((SAMPLES / "expected.yaml").read_text())
# perf hints only appear on a cold inductor cache; tested in test_inductor.py
SCRIPTS = sorted(name for name in EXPECTED if name != "perf_hint_inductor.py")


@pytest.mark.slow
@pytest.mark.parametrize("script", SCRIPTS)
def test_sample(script, shared_run):
    expected = EXPECTED[script]
    # the session's one capture of the sample (tests/conftest.py); other tests read the same run
    run = shared_run("explain", script, "--format", "json", keep_artifacts=True)
    assert run.returncode == (0 if expected["exit_code"] == 0 else 3), run.stderr[-3000:]
    report = run.json
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
