"""`# doctor: ignore[CODE]` comments: they drop the finding on their line; unused ones are reported."""

from __future__ import annotations

import textwrap

import pytest
from support.doctor import doctor_here

pytestmark = pytest.mark.slow

SCRIPT = """\
import torch


@torch.compile(backend="eager")
def f(x):
    y = x * 2
    print("y")  # doctor: ignore[TCD101]
    z = y.sum().item()  # doctor: ignore[TCD199]
    return y + z  # doctor: ignore


f(torch.ones(3))
"""


def test_suppressed_and_unused(tmp_path):
    (tmp_path / "s.py").write_text(textwrap.dedent(SCRIPT))
    run = doctor_here("explain", "s.py", "--format", "json", cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    report = run.json
    found = [(f["code"], f["location"]["line"]) for f in report["findings"]]
    assert found == [("TCD104", 8), ("TCD406", 8), ("TCD406", 9)]
    assert [(s["code"], s["location"]["line"]) for s in report["suppressed"]] == [("TCD101", 7)]
    unused = [f for f in report["findings"] if f["code"] == "TCD406"]
    assert unused[0]["title"] == "Unused suppression: `# doctor: ignore[TCD199]`"
    assert unused[1]["title"] == "Unused suppression: `# doctor: ignore`" and unused[1]["severity"] == "info"
    assert report["summary"]["graph_breaks"] == 1  # the suppressed print is not counted
    assert any("1 finding(s) suppressed" in note for note in report["notes"])
