"""The doctor against reality: ../shared/corpus-dev's real cases and their ground truth (when the
corpus is beside the checkout, as in CI). Also checks each case's fixed script comes out clean."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
import yaml
from support.doctor import doctor_here
from support.ground_truth import check_against_ground_truth
from support.paths import CORPUS

CASES = sorted(p.parent.name for p in CORPUS.glob("*/expected.yaml")) if CORPUS.is_dir() else []

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not CASES, reason="shared/corpus-dev is not beside the checkout")]


def _compiles_with_inductor(script: Path) -> bool:
    """A `torch.compile` without `backend=` (bare `@torch.compile` too) compiles with inductor, torch's default."""
    tree = ast.parse(script.read_text())
    calls = {id(node.func): node for node in ast.walk(tree) if isinstance(node, ast.Call)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "compile" and ast.unparse(node.value) == "torch":
            call = calls.get(id(node))
            if call is None or not any(keyword.arg == "backend" for keyword in call.keywords):
                return True
    return False


def _cases(script: str) -> list:
    """The corpus cases, those whose `script` compiles with inductor marked `inductor`."""
    return [
        pytest.param(case, marks=[pytest.mark.inductor] if _compiles_with_inductor(CORPUS / case / script) else [])
        for case in CASES
    ]


def _as_ground_truth(case: dict) -> dict:
    """The corpus's field names mapped onto sample_models/expected.yaml's."""
    return {
        "graph_breaks": [
            {
                **gb,
                "occurrences": gb["occurrences_in_log"],
                "user_frame": gb.get("user_frame"),
                "in_library_code": gb.get("in_library_code", False),
                "convention": "corpus",  # its categories predate `origin` (conftest._category)
            }
            for gb in case["graph_breaks"]
        ],
        "recompiles": case["recompiles"],
        "recompile_limit_hit": case["recompile_limit_hit"],
        "recompile_limit": case.get("recompile_limit"),
        "compile_failures": 0,
    }


@pytest.mark.parametrize("case", _cases("script.py"))
def test_corpus_case(case, tmp_path):
    folder = CORPUS / case
    expected = yaml.safe_load((folder / "expected.yaml").read_text())
    out = tmp_path / "report.json"
    run = doctor_here("explain", "script.py", "--format", "json", "--output", str(out), cwd=folder)
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(out.read_text())
    check_against_ground_truth(report, _as_ground_truth(expected))
    assert report["summary"]["graph_break_records"] == expected["summary"]["graph_break_log_records"]
    for gb in expected["graph_breaks"]:
        if gb.get("secondary_gb_ids"):
            [finding] = [f for f in report["findings"] if f["location"]["line"] == gb["line"]]
            assert finding["evidence"]["secondary_gb_ids"] == gb["secondary_gb_ids"]


@pytest.mark.parametrize("case", _cases("fixed_script.py"))
def test_corpus_fixed_script_is_clean(case, tmp_path):
    folder = CORPUS / case
    expected = yaml.safe_load((folder / "expected.yaml").read_text())["expected_after_fix"]
    out = tmp_path / "report.json"
    run = doctor_here("explain", "fixed_script.py", "--format", "json", "--output", str(out), cwd=folder)
    assert run.returncode == 0, run.stderr[-3000:]
    summary = json.loads(out.read_text())["summary"]
    assert summary["graph_breaks"] == expected["graph_breaks"]
    assert summary["recompiles"] == expected["recompiles"]
    assert (summary["recompile_limit_hits"] > 0) == expected["recompile_limit_hit"]
