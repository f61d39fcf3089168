"""The doctor against reality: ../shared/corpus-dev's real cases and their ground truth (when the
corpus is beside the checkout, as in CI). Also checks each case's fixed script comes out clean."""

from __future__ import annotations

import json

import pytest
import yaml
from conftest import CORPUS, check_against_ground_truth, run_doctor

CASES = sorted(p.parent.name for p in CORPUS.glob("*/expected.yaml")) if CORPUS.is_dir() else []

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not CASES, reason="shared/corpus-dev is not beside the checkout")]


def _as_ground_truth(case: dict) -> dict:
    """The corpus's field names mapped onto sample_models/expected.yaml's."""
    return {
        "graph_breaks": [
            {
                **gb,
                "occurrences": gb["occurrences_in_log"],
                "user_frame": gb.get("user_frame"),
                "in_library_code": gb.get("in_library_code", False),
            }
            for gb in case["graph_breaks"]
        ],
        "recompiles": case["recompiles"],
        "recompile_limit_hit": case["recompile_limit_hit"],
        "recompile_limit": case.get("recompile_limit"),
        "compile_failures": 0,
    }


@pytest.mark.parametrize("case", CASES)
def test_corpus_case(case, tmp_path):
    folder = CORPUS / case
    expected = yaml.safe_load((folder / "expected.yaml").read_text())
    out = tmp_path / "report.json"
    run = run_doctor("explain", "script.py", "--format", "json", "--output", str(out), cwd=folder)
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(out.read_text())
    check_against_ground_truth(report, _as_ground_truth(expected))
    assert report["summary"]["graph_break_records"] == expected["summary"]["graph_break_log_records"]
    for gb in expected["graph_breaks"]:
        if gb.get("secondary_gb_ids"):
            [finding] = [f for f in report["findings"] if f["location"]["line"] == gb["line"]]
            assert finding["evidence"]["secondary_gb_ids"] == gb["secondary_gb_ids"]


@pytest.mark.parametrize("case", CASES)
def test_corpus_fixed_script_is_clean(case, tmp_path):
    folder = CORPUS / case
    expected = yaml.safe_load((folder / "expected.yaml").read_text())["expected_after_fix"]
    out = tmp_path / "report.json"
    run = run_doctor("explain", "fixed_script.py", "--format", "json", "--output", str(out), cwd=folder)
    assert run.returncode == 0, run.stderr[-3000:]
    summary = json.loads(out.read_text())["summary"]
    assert summary["graph_breaks"] == expected["graph_breaks"]
    assert summary["recompiles"] == expected["recompiles"]
    assert (summary["recompile_limit_hits"] > 0) == expected["recompile_limit_hit"]
