"""Golden files: every report format on the checked-in captures, normalised for paths and times.

Regenerate deliberately with `UPDATE_SNAPSHOTS=1 pytest tests/test_golden.py` and review the diff.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from conftest import REPO, SAMPLES

from torchcompile_doctor.analysis import AnalysisContext, analyze
from torchcompile_doctor.analysis.code import read_source_file
from torchcompile_doctor.analysis.source_snapshot import FILE_NAME, snapshot_reader
from torchcompile_doctor.events.load import load_artifacts
from torchcompile_doctor.renderers import FORMATS, RenderOptions, render

CAPTURES = REPO / "tests" / "data" / "captures"
GOLDEN = REPO / "tests" / "golden"
RECORDED_ROOT = "/work/main/sample_models"  # where the captures were made (see their README)
EXTENSIONS = {
    "terminal": "txt",
    "json": "json",
    "markdown": "md",
    "sarif": "sarif.json",
    "junit": "junit.xml",
    "github": "github.txt",
    "html": "html",
}


def _read_from_checkout(path: str):
    """Source lines for paths recorded on the machine that made the capture, read from this checkout."""
    if path.startswith(RECORDED_ROOT + "/"):
        return read_source_file(str(SAMPLES / path[len(RECORDED_ROOT) + 1 :]))
    return read_source_file(path)


def normalise(text: str) -> str:
    text = text.replace(RECORDED_ROOT, "<SAMPLES>")
    text = re.sub(r"(/[^\s\"',:]*)?/tests/data/captures/", "<CAPTURES>/", text)  # a capture made in a checkout
    text = re.sub(r"(/[^\s\"',:]*)?/(site|dist)-packages/", "<SITE>/", text)
    text = re.sub(r"(compile_time_s|compile_seconds)\": [0-9.]+", r'\1": 0.0', text)
    text = re.sub(r"compile [0-9.]+ s", "compile 0.00 s", text)
    text = re.sub(r"[0-9.]+ s compiling", "0.00 s compiling", text)
    text = re.sub(r"\| [0-9.]+ s \|", "| 0.00 s |", text)
    text = re.sub(r"torchcompile-doctor [0-9][\w.+-]*", "torchcompile-doctor <version>", text)
    text = re.sub(r"\"tool_version\": \"[^\"]+\"", '"tool_version": "<version>"', text)
    text = re.sub(r'("name": "torchcompile-doctor",\s*"version": )"[^"]+"', r'\1"<version>"', text)  # sarif driver
    text = re.sub(r'name="tool_version" value="[^"]+"', 'name="tool_version" value="VERSION"', text)  # junit
    text = re.sub(r' time="[0-9.]+"', ' time="0.000"', text)  # junit
    return text


def _report(name: str):
    log = load_artifacts(CAPTURES / name)
    kept = snapshot_reader(CAPTURES / name)  # a capture with its source snapshot reads the code as it was captured

    def read(path: str):
        return kept(path) if (CAPTURES / name / FILE_NAME).is_file() else _read_from_checkout(path)

    context = AnalysisContext(target=f"{RECORDED_ROOT}/{name}.py", root=RECORDED_ROOT, read_source=read)
    return analyze(log, context)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", sorted(p.name for p in CAPTURES.iterdir() if p.is_dir()))
def test_golden(name, fmt):
    text = normalise(render(_report(name), fmt, RenderOptions(color=False, width=110, base_dir=RECORDED_ROOT)))
    golden = GOLDEN / f"{name}.{EXTENSIONS[fmt]}"
    if os.environ.get("UPDATE_SNAPSHOTS") == "1" or not golden.exists():
        golden.write_text(text)
        if os.environ.get("UPDATE_SNAPSHOTS") != "1":
            pytest.fail(f"wrote missing golden file {golden.name}; review it and rerun")
    assert text == golden.read_text()


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
