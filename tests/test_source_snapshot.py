"""A capture keeps the source lines its analysis read (doctor_sources.json), so `doctor report DIR` prints the
same wherever and whenever it runs: on another machine, or after the script was edited or deleted."""

from __future__ import annotations

import json
import textwrap

import pytest
from conftest import doctor_here, doctor_in_process

from torchcompile_doctor.analysis.source_snapshot import (
    FILE_NAME,
    MAX_FILE_BYTES,
    RecordingReader,
    snapshot_reader,
    write_snapshot,
)

SCRIPT = textwrap.dedent(
    """
    import torch

    @torch.compile(backend="eager")
    def step(x):
        y = x * 2
        print("the line the report shows")
        return y + 1

    step(torch.ones(3))
    """
)


def test_the_snapshot_round_trips_what_was_read(tmp_path):
    small, big = tmp_path / "small.py", tmp_path / "big.py"
    small.write_text("a = 1\nb = 2\n")
    big.write_text("x" * (MAX_FILE_BYTES + 1))
    reader = RecordingReader()
    assert reader(str(small)) == ["a = 1\n", "b = 2\n"]
    reader(str(big))
    assert reader(str(tmp_path / "missing.py")) is None
    write_snapshot(reader, tmp_path)
    small.write_text("changed = True\n")
    read = snapshot_reader(tmp_path)
    assert read(str(small)) == ["a = 1\n", "b = 2\n"]  # the code as the run saw it, not as it is now
    assert read(str(big)) == ["x" * (MAX_FILE_BYTES + 1)]  # too big to keep: read from disk
    kept = json.loads((tmp_path / FILE_NAME).read_text())["files"]
    assert set(kept) == {str(small)}


@pytest.mark.parametrize(
    "text",
    ["not json", '{"files": [1, 2]}', '{"files": {"a.py": "not a list"}}', "[" * 100_000, '{"files": {"a.py": [1]}}'],
)
def test_a_damaged_snapshot_is_ignored(tmp_path, text):
    source = tmp_path / "a.py"
    source.write_text("on disk\n")
    (tmp_path / FILE_NAME).write_text(text)
    assert snapshot_reader(tmp_path)(str(source)) == ["on disk\n"]


@pytest.mark.slow
def test_report_shows_the_code_as_it_was_after_the_script_is_gone(tmp_path):
    script = tmp_path / "train_step.py"
    script.write_text(SCRIPT)
    captured = tmp_path / "capture"
    run = doctor_here("explain", str(script), "--artifacts", str(captured), cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    assert 'print("the line the report shows")' in run.stdout
    before = doctor_in_process("report", str(captured), cwd=tmp_path)
    script.unlink()  # as on another machine, or after the code moved on
    after = doctor_in_process("report", str(captured), cwd=tmp_path)
    assert before.returncode == after.returncode == 0
    assert after.stdout == before.stdout
    assert 'print("the line the report shows")' in after.stdout
    assert "y = x * 2" in after.stdout  # the context around the break too
