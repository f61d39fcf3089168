"""`# doctor: ignore[CODE]` comments: they drop the finding on their line; unused ones are reported. On the
recorded capture of tests/data/suppressions/s.py (`python tests/support/recording.py record
tests/data/suppressions/s.py`)."""

from __future__ import annotations

import json

from support.captures import reread
from support.paths import DATA

from torchcompile_doctor.renderers import render


def test_suppressed_and_unused():
    report = json.loads(render(reread(DATA / "suppressions" / "s.capture"), "json"))
    found = [(f["code"], f["location"]["line"]) for f in report["findings"]]
    assert found == [("TCD104", 8), ("TCD406", 8), ("TCD406", 9)]
    assert [(s["code"], s["location"]["line"]) for s in report["suppressed"]] == [("TCD101", 7)]
    unused = [f for f in report["findings"] if f["code"] == "TCD406"]
    assert unused[0]["title"] == "Unused suppression: `# doctor: ignore[TCD199]`"
    assert unused[1]["title"] == "Unused suppression: `# doctor: ignore`" and unused[1]["severity"] == "info"
    assert report["summary"]["graph_breaks"] == 1  # the suppressed print is not counted
    assert any("1 finding(s) suppressed" in note for note in report["notes"])
