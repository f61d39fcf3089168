"""End to end: the real CLI on every sample model, checked against sample_models/expected.yaml
(ground truth taken from TORCH_LOGS=graph_breaks,recompiles runs, see that file's header)."""

from __future__ import annotations

import json

import pytest
import yaml
from conftest import SAMPLES, check_against_ground_truth, run_doctor

EXPECTED = yaml.safe_load((SAMPLES / "expected.yaml").read_text())
# perf hints only appear on a cold inductor cache; tested in test_inductor.py
SCRIPTS = sorted(name for name in EXPECTED if name != "perf_hint_inductor.py")


@pytest.mark.slow
@pytest.mark.parametrize("script", SCRIPTS)
def test_sample(script, tmp_path):
    expected = EXPECTED[script]
    out = tmp_path / "report.json"
    run = run_doctor("explain", script, "--format", "json", "--output", str(out), cwd=SAMPLES)
    assert run.returncode == (0 if expected["exit_code"] == 0 else 3), run.stderr[-3000:]
    report = json.loads(out.read_text())
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
