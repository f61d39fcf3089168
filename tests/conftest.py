"""Shared helpers: run the real CLI in a subprocess, as a user would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "sample_models"
CORPUS = REPO.parent / "shared" / "corpus-dev"


@dataclass
class DoctorRun:
    returncode: int
    stdout: str
    stderr: str

    @property
    def json(self) -> dict:
        return json.loads(self.stdout)


def run_doctor(*args: str, cwd: Path | None = None, timeout: float = 300, env: dict | None = None) -> DoctorRun:
    full_env = {**os.environ, **(env or {})}
    full_env.pop("TORCH_LOGS", None)
    process = subprocess.run(
        [sys.executable, "-m", "torchcompile_doctor", *args],
        cwd=cwd or REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=full_env,
    )
    return DoctorRun(process.returncode, process.stdout, process.stderr)


def matches_file(found: str, expected: str) -> bool:
    return found.replace(os.sep, "/").endswith("/" + expected)


def find_findings(findings, kinds, file, line):
    return [
        f
        for f in findings
        if f["kind"] in kinds and matches_file(f["location"]["file"], file) and f["location"]["line"] == line
    ]


def check_against_ground_truth(report: dict, expected: dict) -> None:
    """Assert a JSON report finds exactly the ground truth's breaks, recompiles, limits and failures.

    `expected` uses sample_models/expected.yaml's field names (tests/test_corpus_dev.py maps the corpus to them).
    """
    findings = report["findings"]
    summary = report["summary"]
    # graph breaks: every unique break, at the right place, with id, category, count and call sites
    breaks = [f for f in findings if f["kind"] in ("graph_break", "frame_skipped")]
    assert len(breaks) == len(expected["graph_breaks"]), [(b["location"], b["gb_type"]) for b in breaks]
    assert summary["graph_breaks"] == len(expected["graph_breaks"])
    for gb in expected["graph_breaks"]:
        kind = "frame_skipped" if gb.get("frame_skipped") else "graph_break"
        found = find_findings(findings, (kind,), gb["file"], gb["line"])
        assert len(found) == 1, (gb, [(b["kind"], b["location"]) for b in breaks])
        finding = found[0]
        assert finding["gb_id"] == gb["gb_id"]
        assert finding["gb_type"] == gb["gb_type"]
        assert finding["category"] == gb["category"]
        assert finding["count"] == gb["occurrences"]
        if "call_sites" in gb:
            assert finding["call_sites"] == gb["call_sites"]
        if gb.get("in_library_code"):
            uf = finding["user_frame"]
            assert uf is not None and f"{os.path.basename(uf['file'])}:{uf['line']}" == gb["user_frame"]
        assert "torch_dynamo_resume_in" not in finding["location"]["function"]
        assert finding["fix"]["summary"]

    # recompiles: per function, how many times, classified
    recompiles = [f for f in findings if f["kind"] == "recompile"]
    assert len(recompiles) == len(expected["recompiles"])
    assert summary["recompiles"] == sum(r["count"] for r in expected["recompiles"])
    for rc in expected["recompiles"]:
        found = find_findings(findings, ("recompile",), rc["file"], rc["line"])
        assert len(found) == 1, (rc, [r["location"] for r in recompiles])
        assert found[0]["reason_class"] == rc["reason_class"]
        assert found[0]["count"] == rc["count"]
        assert "torch_dynamo_resume_in" not in found[0]["location"]["function"]

    limits = [f for f in findings if f["kind"] == "recompile_limit"]
    assert len(limits) == (1 if expected["recompile_limit_hit"] else 0)
    assert summary["recompile_limit_hits"] == len(limits)
    if limits:
        assert limits[0]["severity"] == "critical"
        assert matches_file(limits[0]["location"]["file"], expected["recompile_limit"]["file"])
        assert limits[0]["location"]["line"] == expected["recompile_limit"]["line"]

    failures = [f for f in findings if f["kind"] == "compile_failure"]
    assert summary["compile_failures"] == expected["compile_failures"]
    for detail in expected.get("compile_failure_details", []):
        found = find_findings(findings, ("compile_failure",), detail["file"], detail["line"])
        assert len(found) == 1, failures
        if detail["gb_id"]:
            assert found[0]["gb_id"] == detail["gb_id"]
