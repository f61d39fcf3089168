"""The ground-truth check of a JSON report: exactly the breaks, recompiles, limits and failures that torch's own
log of the same run shows (sample_models/expected.yaml, ../shared/corpus-dev's expected.yaml)."""

from __future__ import annotations

import os


def matches_file(found: str, expected: str) -> bool:
    return found.replace(os.sep, "/").endswith("/" + expected)


def find_findings(findings, kinds, file, line):
    return [
        f
        for f in findings
        if f["kind"] in kinds and matches_file(f["location"]["file"], file) and f["location"]["line"] == line
    ]


def _category(finding: dict, convention: str | None) -> str:
    """The finding's category as the ground truth names it. shared/corpus-dev's README fixes an older
    convention, from before breaks had an `origin`: a logging call inside a library is third_party_library,
    and deliberate torch.optim breaks and data-dependent output shapes are other."""
    category = finding["category"]
    if convention != "corpus":
        return category
    if category == "print_or_logging" and finding["origin"] == "third_party":
        return "third_party_library"
    return "other" if category in ("by_design", "data_dependent_operator") else category


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
        assert _category(finding, gb.get("convention")) == gb["category"]
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
