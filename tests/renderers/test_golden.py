"""Golden files: every report format on the checked-in captures (tests/data/captures, its README says how each
was made), re-read as `doctor report DIR` re-reads them, normalised for the machine's paths.

Regenerate deliberately with `UPDATE_SNAPSHOTS=1 pytest tests/renderers/test_golden.py` and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support.captures import CAPTURES, normalise, recorded_root, reread
from support.paths import REPO, TESTS
from support.snapshots import assert_matches_snapshot

from torchcompile_doctor.events.load import load_artifacts
from torchcompile_doctor.renderers import FORMATS, RenderOptions, render, render_to

GOLDEN = TESTS / "golden"
EXTENSIONS = {
    "terminal": "txt",
    "json": "json",
    "markdown": "md",
    "sarif": "sarif.json",
    "junit": "junit.xml",
    "github": "github.txt",
    "html": "html",
}


def golden_text(report, fmt: str) -> str:
    """The report rendered as a golden file holds it: paths relative to the program's folder as recorded."""
    root = recorded_root(report)
    return normalise(render(report, fmt, RenderOptions(color=False, width=110, base_dir=root)), root)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", sorted(p.name for p in CAPTURES.iterdir() if p.is_dir()))
def test_golden(name, fmt):
    assert_matches_snapshot(golden_text(reread(CAPTURES / name), fmt), GOLDEN / f"{name}.{EXTENSIONS[fmt]}")


@pytest.mark.parametrize("name", sorted(p.name for p in CAPTURES.iterdir() if p.is_dir()))
def test_the_json_written_in_parts_is_the_golden_text(name):
    """What the CLI writes (`render_to`: the report's sections made and written one at a time) is `render`'s text."""
    report = reread(CAPTURES / name)
    options = RenderOptions(color=False, width=110, base_dir=recorded_root(report))
    parts: list[str] = []
    render_to(report, "json", options, parts.append)
    assert "".join(parts) == render(report, "json", options) and len(parts) > 1


def test_every_format_has_a_renderer_and_a_golden():
    from torchcompile_doctor.renderers import renderer_for
    from torchcompile_doctor.settings import REPORT_FORMATS

    assert set(FORMATS) == set(REPORT_FORMATS) == set(EXTENSIONS)
    for fmt in FORMATS:
        assert callable(renderer_for(fmt))


def test_capture_reads_cleanly():
    for capture in CAPTURES.iterdir():
        if capture.is_dir():
            log = load_artifacts(capture)
            assert log.health.problems == 0 and log.health.records > 50
            assert log.bootstrap and log.target_exits[-1].status == "ok"


@pytest.mark.slow
def test_offline_report_needs_no_torch(tmp_path):
    """`doctor report` on a capture, in a Python where importing torch fails."""
    import subprocess
    import sys

    blocker = tmp_path / "torch.py"
    blocker.write_text("raise ImportError('torch is blocked in this test')\n")
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{REPO}"}
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "torchcompile_doctor",
            "report",
            str(CAPTURES / "int_arg_recompile_limit"),
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    assert '"recompile_limit_hits": 1' in out.stdout


def test_report_reads_one_trace_file():
    log_file = next((CAPTURES / "helper_two_callsites" / "trace").glob("*.log"))
    log = load_artifacts(Path(log_file))
    assert len(log.graph_breaks) == 2 and not log.bootstrap  # no side channel beside a lone file
