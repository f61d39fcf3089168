"""How frames are named and shown, on recorded captures: a decorator's wrapper by the function it wraps (its
`__wrapped__`), and never a frame of the doctor's own (its bootstrap and hooks sit on every stack of a capture)."""

from __future__ import annotations

import json

from support.captures import reread
from support.paths import DATA, RULES

from torchcompile_doctor.model.findings import torch_text_of
from torchcompile_doctor.model.json import to_json
from torchcompile_doctor.model.report import Kind

DECORATED = RULES / "TCD403" / "decorated_forward.capture"


def test_a_decorators_wrapper_is_named_by_the_function_it_wraps():
    report = reread(DECORATED)
    [finding] = [f for f in report.findings if f.kind == Kind.FRAME_SKIPPED]
    names = [frame.function for frame in finding.skipped_frames]
    assert names == ["Stack.forward via @recording", "Stack.forward"]
    assert finding.title.startswith("`Stack.forward` runs eagerly")
    assert "<locals>" not in finding.why


def test_a_wrapper_of_a_wrapper_merged_on_torchs_stack_is_named_by_what_it_wraps():
    report = reread(DATA / "fallbacks" / "skip_reasons")
    names = {frame.function for f in report.findings for frame in f.skipped_frames}
    assert "decorated via @restore" in names and not any(".<locals>.wrapper" in n for n in names)


def test_no_frame_of_the_doctor_in_what_the_report_quotes_from_torch():
    raw = "".join(p.read_text(encoding="utf-8") for p in DECORATED.rglob("*.log"))
    assert "torchcompile_doctor/capture/hooks.py" in raw  # torch's traceback holds the doctor's frames
    report = reread(DECORATED)
    quoted = [torch_text_of(f.evidence) or "" for f in report.findings]
    assert any("User code traceback" in text for text in quoted)
    assert all("torchcompile_doctor" not in text for text in quoted)
    assert "torchcompile_doctor/" not in json.dumps(to_json(report))
