"""gate/baseline.py: the baseline file of `doctor check`, read, matched and rewritten in-process on reports re-read
from recorded captures (the CLI's round trip through a file is tests/cli/test_check.py)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from support.captures import CAPTURES, reread

from torchcompile_doctor.errors import DoctorError
from torchcompile_doctor.gate.baseline import (
    known_findings,
    open_baseline,
    read_baseline,
    target_key,
    torch_release,
    updated_document,
    write_baseline,
)

HELPER = CAPTURES / "helper_two_callsites"


@pytest.fixture(scope="module")
def report():
    found = reread(HELPER)
    assert found.findings, "the recorded capture has findings to baseline"
    return found


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("not json", "is not valid JSON"),
        ('{"version": 2, "torch": {}}', "is not a version-1 doctor baseline"),
        ('{"version": 1}', "has no `torch` table"),
        ('{"version": 1, "torch": {"2.13.0": []}}', "malformed section for torch 2.13.0"),
        ('{"version": 1, "torch": {"2.13.0": {"t.py": [{"code": "TCD101"}]}}}', "malformed entries for torch 2.13.0"),
    ],
)
def test_a_malformed_baseline_names_what_is_wrong_and_the_way_out(tmp_path, text, problem):
    path = tmp_path / "baseline.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DoctorError) as raised:
        read_baseline(path)
    assert problem in str(raised.value) and "--update-baseline" in str(raised.value)


def test_a_missing_baseline_is_an_error_unless_the_run_writes_it(tmp_path):
    missing = tmp_path / "none.json"
    assert open_baseline(missing, update=True) is None
    assert open_baseline(None, update=False) is None
    with pytest.raises(DoctorError, match="does not exist; create it with --update-baseline"):
        open_baseline(missing, update=False)


def test_the_build_tag_does_not_split_a_release():
    assert torch_release("2.13.0+cpu") == torch_release("2.13.0+cu128") == "2.13.0"
    assert torch_release(None) == "unknown"


def test_the_target_is_keyed_relative_to_the_baseline_folder(report, tmp_path):
    script = tmp_path / "proj" / "train.py"
    assert target_key(replace(report, target=f"{script}:step"), tmp_path) == "proj/train.py:step"
    assert target_key(replace(report, target="-m pkg.train"), tmp_path) == "-m pkg.train"
    assert target_key(replace(report, target="/elsewhere/t.py"), tmp_path) == "/elsewhere/t.py"


def test_a_written_baseline_knows_every_finding_of_its_run(report, tmp_path):
    document, update = updated_document(None, [report], tmp_path)
    assert (update.added, update.pruned, update.kept) == (len(report.findings), 0, 0)
    path = tmp_path / "baseline.json"
    write_baseline(path, document)
    known, summary = known_findings(read_baseline(path), report)
    assert set(known) == {f.fingerprint for f in report.findings}
    assert summary.note is None and summary.fixed == ()


def test_a_finding_gone_from_the_run_is_pruned_and_listed_as_fixed(report, tmp_path):
    document, _ = updated_document(None, [report], tmp_path)
    path = tmp_path / "baseline.json"
    write_baseline(path, document)
    gone = report.findings[0]
    fewer = replace(report, findings=report.findings[1:])
    _, summary = known_findings(read_baseline(path), fewer)
    assert len(summary.fixed) == 1 and summary.fixed[0].startswith(gone.code)
    _, update = updated_document(read_baseline(path), [fewer], tmp_path)
    assert (update.added, update.pruned, update.kept) == (0, 1, len(report.findings) - 1)


def test_another_releases_section_is_used_with_a_note(report, tmp_path):
    document, _ = updated_document(None, [replace(report, torch_version="2.11.0")], tmp_path)
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    known, summary = known_findings(read_baseline(path), replace(report, torch_version="2.13.0+cpu"))
    assert summary.torch_release == "2.11.0" and "written for torch 2.11.0" in (summary.note or "")
    assert set(known) == {f.fingerprint for f in report.findings}
