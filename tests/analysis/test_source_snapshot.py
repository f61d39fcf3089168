"""A kept capture reads the same everywhere: it keeps what its analysis read of the disk (doctor_sources.json),
so `doctor report DIR` prints the same report on another machine, or after the code was edited or deleted; and
where a file is read from the disk instead (no snapshot, or one without it), the file is used only if it still
says what the trace recorded of it, else the report says it changed since the capture."""

from __future__ import annotations

import json
import shutil

import pytest
from support.captures import CAPTURES, capture_dirs, disk_unreadable, reread, reread_options, trace_files
from support.paths import DATA
from support.recording import move

from torchcompile_doctor import pipeline
from torchcompile_doctor.analysis.source_check import RecordedLine, first_disagreement
from torchcompile_doctor.capture_layout import SOURCE_SNAPSHOT as FILE_NAME
from torchcompile_doctor.source_files import (
    MAX_FILE_BYTES,
    RecordingSources,
    read_snapshot,
    snapshot_sources,
    write_snapshot,
)


def test_the_snapshot_round_trips_what_was_read(tmp_path):
    small, big, installed = tmp_path / "small.py", tmp_path / "big.py", tmp_path / "venv"
    small.write_text("a = 1\nb = 2\n")
    big.write_text("x" * (MAX_FILE_BYTES + 1))
    (installed / "lib-1.0.dist-info").mkdir(parents=True)
    sources = RecordingSources()
    assert sources.read(str(small)) == ["a = 1\n", "b = 2\n"]
    sources.read(str(big))
    assert sources.read(str(tmp_path / "missing.py")) is None
    assert sources.is_install_dir(str(installed)) and not sources.is_install_dir(str(tmp_path))
    write_snapshot(sources.snapshot, tmp_path)

    small.write_text("changed = True\n")
    (tmp_path / "missing.py").write_text("made after the run\n")
    shutil.rmtree(installed)
    kept = snapshot_sources(tmp_path)
    assert kept.read(str(small)) == ["a = 1\n", "b = 2\n"]  # the code as the run saw it, not as it is now
    assert kept.read(str(tmp_path / "missing.py")) is None  # unreadable then: not taken from the disk now
    assert kept.is_install_dir(str(installed)) and not kept.is_install_dir(str(tmp_path))
    assert kept.read(str(big)) == ["x" * (MAX_FILE_BYTES + 1)]  # too big to keep: read from disk
    data = json.loads((tmp_path / FILE_NAME).read_text())
    assert data["version"] == 2 and set(data["files"]) == {str(small), str(tmp_path / "missing.py")}


@pytest.mark.parametrize(
    "text",
    ["not json", '{"files": [1, 2]}', '{"files": {"a.py": "not a list"}}', "[" * 100_000, '{"files": {"a.py": [1]}}'],
)
def test_a_damaged_snapshot_is_ignored(tmp_path, text):
    source = tmp_path / "a.py"
    source.write_text("on disk\n")
    (tmp_path / FILE_NAME).write_text(text)
    assert snapshot_sources(tmp_path).read(str(source)) == ["on disk\n"]


def test_a_version_1_snapshot_still_reads(tmp_path):
    """Snapshots written before unreadable files and install dirs were kept: the files it holds are used, the
    rest is read from the disk."""
    kept, elsewhere = tmp_path / "kept.py", tmp_path / "elsewhere.py"
    elsewhere.write_text("on disk\n")
    (tmp_path / FILE_NAME).write_text(json.dumps({"version": 1, "files": {str(kept): ["as it ran\n"]}}))
    sources = snapshot_sources(tmp_path)
    assert sources.read(str(kept)) == ["as it ran\n"] and sources.read(str(elsewhere)) == ["on disk\n"]


def _dumps() -> list:
    folders = (p for p in (DATA / "depyf_dumps").iterdir() if p.is_dir() and not p.name.startswith("."))
    return sorted(p for p in folders if p.name != "scripts")


@pytest.mark.parametrize(
    "path", capture_dirs() + trace_files(), ids=lambda p: str(p.relative_to(DATA.parent)).replace("/", ":")
)
def test_every_checked_in_capture_reads_the_same_without_the_files_it_names(path):
    """Its snapshot holds every file the analysis reads and every install dir it asks about: with the disk
    made unreadable the re-read asks it for nothing and comes to the same report."""
    expected = reread(path)  # the session's re-read (the rule and e2e tests read the same captures)
    with disk_unreadable() as asked:
        again = pipeline.reread(path, reread_options(path)).report
    assert asked == []
    assert again == expected


@pytest.mark.parametrize("dump", _dumps(), ids=lambda p: p.name)
def test_a_plain_depyf_dump_needs_no_source_file(dump):
    """A depyf dump carries its own code: its report is the same with the disk made unreadable."""
    expected = pipeline.reread(dump, pipeline.RereadOptions(dump=True)).report
    with disk_unreadable():
        assert pipeline.reread(dump, pipeline.RereadOptions(dump=True)).report == expected


# ------------------------------------------------------------------------------------------- changed sources

SWITCH = "transformers/models/switch_transformers/modeling_switch_transformers.py"
# where hf_switch_tiny's transformers was installed when it was recorded
SITE = next(p for p in read_snapshot(CAPTURES / "hf_switch_tiny").files if p.endswith(SWITCH))[: -len(SWITCH) - 1]


@pytest.fixture
def switch_without_snapshot(tmp_path):
    """hf_switch_tiny as a capture with no snapshot, its transformers files on the disk under tmp_path/site-packages
    as the run saw them; (capture, the site-packages folder)."""
    site = tmp_path / "site-packages"
    capture = tmp_path / "capture"
    move(CAPTURES / "hf_switch_tiny", capture, SITE, str(site))
    for path, lines in read_snapshot(capture).files.items():
        if path.startswith(str(site)) and lines is not None:
            (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / path).write_text("".join(lines))
    with_snapshot = reread(CAPTURES / "hf_switch_tiny")
    (capture / FILE_NAME).unlink()
    return capture, site, with_snapshot


def _at(report, file_end: str):
    return [f for f in report.findings if f.location and f.location.file.endswith(file_end)]


def test_unchanged_library_files_read_from_the_disk_give_the_same_findings(switch_without_snapshot):
    capture, _, with_snapshot = switch_without_snapshot
    report = pipeline.reread(capture).report
    assert not [note for note in report.notes if note.startswith("source changed")]
    assert [(f.code, f.title, f.location.source) for f in report.findings] == [
        (f.code, f.title, f.location.source) for f in with_snapshot.findings
    ]


def test_a_library_file_edited_since_the_capture_is_named_and_not_read(switch_without_snapshot):
    capture, site, with_snapshot = switch_without_snapshot
    library = site / SWITCH
    library.write_text("# a newer release\n" + library.read_text())  # every line moves down by one
    report = pipeline.reread(capture).report
    (note,) = [note for note in report.notes if note.startswith("source changed")]
    assert f"source changed since the capture: {SWITCH} (the trace has `" in note
    assert "; the report shows no line, function or context from it." in note
    (before,) = [f for f in _at(with_snapshot, SWITCH) if f.code == "TCD403"]
    (after,) = [f for f in _at(report, SWITCH) if f.code == "TCD403"]
    assert before.location.source == "causal_mask = attention_mask[:, None, None, :]" and before.location.context
    assert after.location.line == before.location.line  # where the trace says, with nothing from the new file
    assert after.location.source is None and after.location.context == ()
    assert after.location.function == "forward"  # torch's own name: no class taken from the edited file
    assert before.location.function == "SwitchTransformersStack.forward"


# ------------------------------------------------------------------------------------------- the check itself

LINES = ["import torch\n", "\n", "def step(x):\n", "    y = x * 2\n", "    return y\n"]


@pytest.mark.parametrize(
    ("fact", "disagreement"),
    [
        (RecordedLine(4, "y = x * 2", "step"), None),
        (RecordedLine(3, "", "step", starts_def=True), None),
        (RecordedLine(5, "return y", "torch_dynamo_resume_in_step_at_4"), None),
        (RecordedLine(1, "import torch", "<module>"), None),
        (RecordedLine(4, "y = x * 3", "step"), "the trace has `y = x * 3` at line 4; the file now has `y = x * 2`"),
        (RecordedLine(9, "", "step"), "the trace has line 9; the file now has 5 lines"),
        (RecordedLine(4, "", "forward"), "the trace has `forward` around line 4; the file now has no such function"),
        (RecordedLine(4, "", "step", starts_def=True), "the trace has `step` starting at line 4; the file now has"),
    ],
)
def test_what_the_trace_recorded_is_compared_with_the_file(fact, disagreement):
    found = first_disagreement(LINES, [fact])
    assert found == disagreement if disagreement is None else found.startswith(disagreement)


def test_a_file_that_does_not_parse_is_compared_by_its_lines_only():
    broken = ["def step(x:\n", "    return x\n"]
    assert first_disagreement(broken, [RecordedLine(2, "return x", "step")]) is None
    assert first_disagreement(broken, [RecordedLine(2, "return y", "step")]) is not None


@pytest.mark.slow
def test_a_live_capture_keeps_every_file_its_analysis_read(shared_run):
    """What a live run writes is complete too: its kept capture re-reads to the live report with no file."""
    # the session's capture of the sample that tests/capture/test_recapture.py records again
    live = shared_run("explain", "int_arg_recompile_limit.py", "--format", "json", keep_artifacts=True)
    assert live.artifacts is not None
    with disk_unreadable() as asked:
        again = pipeline.reread(live.artifacts).report
    assert asked == []
    assert [(f.code, f.location.file, f.location.line, f.location.source) for f in again.findings] == [
        (f["code"], f["location"]["file"], f["location"]["line"], f["location"]["source"])
        for f in live.json["findings"]
    ]
