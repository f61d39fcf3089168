"""The doctor against reality: the real cases of the project's dev corpus (../shared/corpus-dev) and their ground
truth. Each case's `script.py` and `fixed_script.py` were recorded once (tests/data/corpus/CASE/, each capture's
recording.json says how; the case's expected.yaml copied beside them), so the check runs on any machine and reads
nothing outside the clone; one case also runs live, from the program its capture's source snapshot keeps."""

from __future__ import annotations

import json

import pytest
import yaml
from support.captures import CORPUS_CAPTURES, reread
from support.doctor import doctor_here
from support.ground_truth import check_against_ground_truth
from support.recording import RECORDING

from torchcompile_doctor.renderers import render
from torchcompile_doctor.source_files import read_snapshot

CASES = sorted(p.name for p in CORPUS_CAPTURES.iterdir() if p.is_dir())
LIVE_CASE = "01_toy_fn"  # small: what a fresh run of the corpus finds, in seconds


def _as_ground_truth(case: dict) -> dict:
    """The corpus's field names mapped onto sample_models/expected.yaml's."""
    return {
        "graph_breaks": [
            {
                **gb,
                "occurrences": gb["occurrences_in_log"],
                "user_frame": gb.get("user_frame"),
                "in_library_code": gb.get("in_library_code", False),
                "convention": "corpus",  # its categories predate `origin` (support.ground_truth._category)
            }
            for gb in case["graph_breaks"]
        ],
        "recompiles": case["recompiles"],
        "recompile_limit_hit": case["recompile_limit_hit"],
        "recompile_limit": case.get("recompile_limit"),
        "compile_failures": 0,
    }


def _expected(case: str) -> dict:
    return yaml.safe_load((CORPUS_CAPTURES / case / "expected.yaml").read_text())


def _report(case: str, script: str) -> dict:
    capture = CORPUS_CAPTURES / case / f"{script}.capture"
    assert json.loads((capture / RECORDING).read_text())["exit_code"] == 0
    return json.loads(render(reread(capture), "json"))


def check_case(report: dict, expected: dict) -> None:
    check_against_ground_truth(report, _as_ground_truth(expected))
    assert report["summary"]["graph_break_records"] == expected["summary"]["graph_break_log_records"]
    for gb in expected["graph_breaks"]:
        if gb.get("secondary_gb_ids"):
            [finding] = [f for f in report["findings"] if f["location"]["line"] == gb["line"]]
            assert finding["evidence"]["secondary_gb_ids"] == gb["secondary_gb_ids"]


def test_every_case_is_recorded():
    assert len(CASES) == 8
    for case in CASES:
        assert {p.name for p in (CORPUS_CAPTURES / case).iterdir()} == {
            "expected.yaml",
            "script.capture",
            "fixed_script.capture",
        }


@pytest.mark.parametrize("case", CASES)
def test_corpus_case(case):
    check_case(_report(case, "script"), _expected(case))


@pytest.mark.parametrize("case", CASES)
def test_corpus_fixed_script_is_clean(case):
    expected = _expected(case)["expected_after_fix"]
    summary = _report(case, "fixed_script")["summary"]
    assert summary["graph_breaks"] == expected["graph_breaks"]
    assert summary["recompiles"] == expected["recompiles"]
    assert (summary["recompile_limit_hits"] > 0) == expected["recompile_limit_hit"]


def _recorded_program(case: str, script: str) -> str:
    """The program's text as its capture's source snapshot keeps it."""
    files = read_snapshot(CORPUS_CAPTURES / case / f"{script}.capture").files
    [lines] = [lines for path, lines in files.items() if path.endswith(f"/{case}/{script}.py") and lines]
    return "".join(lines)


@pytest.mark.slow
def test_a_corpus_case_run_live(tmp_path):
    (tmp_path / "script.py").write_text(_recorded_program(LIVE_CASE, "script"))
    out = tmp_path / "report.json"
    # the case compiles with inductor; the eager fast mode finds what inductor finds (tests/capture/test_inductor.py)
    # without its C++ compile (measured under load: 13.5 s -> 4.8 s)
    args = ("--backend", "eager", "--format", "json", "--output", str(out))
    run = doctor_here("explain", "script.py", *args, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    check_case(json.loads(out.read_text()), _expected(LIVE_CASE))
