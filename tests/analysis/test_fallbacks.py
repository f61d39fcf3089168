"""Fallbacks to eager (TCD403) and runs that compile nothing (TCD407), on real captures checked in under
tests/data/fallbacks/ (its README.md says how each was made): every frame torch skipped is named where it
is defined, with why torch could not resume there and the break that caused it at its own line; a run
that called torch.compile but compiled nothing is a finding, and it fails the gate whatever the criteria."""

from __future__ import annotations

import ast
import re

import pytest
from support.paths import DATA

from torchcompile_doctor import pipeline
from torchcompile_doctor.events.load import load_artifacts
from torchcompile_doctor.model.gate import GateCriteria
from torchcompile_doctor.model.json import to_json
from torchcompile_doctor.model.report import Kind

DATA = DATA / "fallbacks"
SKIP_SCRIPT = (DATA / "skip_reasons.py").read_text(encoding="utf-8")


def _report(name: str):
    return pipeline.reread(DATA / name).report


def _line(text: str, script: str = SKIP_SCRIPT, after: int = 0) -> int:
    """The number of the first line (after line `after`) of the script that starts with `text`."""
    lines = script.splitlines()
    return next(n for n, line in enumerate(lines, start=1) if n > after and line.strip().startswith(text))


def _defined_at(name: str) -> int:
    """Where torch says a function starts (co_firstlineno): its first decorator, else its `def`."""
    node = next(n for n in ast.walk(ast.parse(SKIP_SCRIPT)) if isinstance(n, ast.FunctionDef) and n.name == name)
    return min([node.lineno] + [d.lineno for d in node.decorator_list])


def _fallbacks(report) -> list:
    return [f for f in report.findings if f.kind == Kind.FRAME_SKIPPED]


def test_every_frame_torch_skipped_is_named_once_where_it_is_defined():
    log = load_artifacts(DATA / "skip_reasons")
    skipped = sorted((m.co_filename, m.co_firstlineno) for m in log.metrics if m.fail_type)
    report = _report("skip_reasons")
    named = sorted((frame.file, frame.line) for f in _fallbacks(report) for frame in f.skipped_frames)
    assert named == skipped and len(skipped) == 8
    assert report.summary.fallbacks_to_eager == len(skipped)  # frames, not findings
    sites = {(r.gb_type, r.file, r.line) for r in log.graph_breaks}
    assert report.summary.graph_breaks == len(sites)  # one finding per break site, skip or not
    functions = {frame.function: frame.line for f in _fallbacks(report) for frame in f.skipped_frames}
    for name in ("in_loop", "in_try", "in_with", "via_property", "raises"):
        assert functions[name] == _defined_at(name)
    # the decorator's inner function, named by the function it wraps (its `__wrapped__`)
    assert functions["decorated via @restore"] == _defined_at("wrapper")
    assert functions["in_try.<locals>.<dictcomp>"] == _line("wanted = {")
    resume = _line("hit = (x > 0).nonzero()")
    assert functions[f"route (after line {resume})"] == resume


def _reason_cases() -> list:
    resume = _line("hit = (x > 0).nonzero()")
    in_try = _line("def in_try")
    return [
        ("in_loop", f"inside the loop `for _ in range(2):` (line {_line('for _ in range(2):')})"),
        ("in_loop", "GB7000"),
        ("in_try", f"inside the `try` block at line {_line('try:', after=in_try)}"),
        ("in_with", f"inside `with Tracker():` (line {_line('with Tracker():')})"),
        ("decorated via @restore", "merges it with the next frame of the same name (`wrapper`)"),
        (f"route (after line {resume})", f"rest of the function after the earlier graph break at line {resume}"),
        (f"route (after line {resume})", f"inside the loop `for i in hit:` (line {_line('for i in hit:')})"),
        ("via_property", f"attribute access `.scale` at line {_line('return x * CONFIG.scale')}"),
        ("raises", "raised TypeError("),
        ("in_try.<locals>.<dictcomp>", "is a comprehension"),
    ]


@pytest.mark.parametrize(("function", "reason"), _reason_cases())
def test_each_skipped_frame_says_why_torch_could_not_resume_there(function, reason):
    report = _report("skip_reasons")
    [finding] = [f for f in _fallbacks(report) if function in {frame.function for frame in f.skipped_frames}]
    assert re.search(rf"`{re.escape(function)}`[^.]*{re.escape(reason)}", finding.why), finding.why
    assert "(e.g. inside a for/while loop)" not in finding.why  # the old text for every skip


def test_a_fallback_points_to_the_break_at_its_own_line_and_keeps_its_identity():
    report = _report("skip_reasons")
    [finding] = [f for f in _fallbacks(report) if "in_loop" in {frame.function for frame in f.skipped_frames}]
    log = load_artifacts(DATA / "skip_reasons")
    records = [r for r in log.graph_breaks if r.line == _line('log.warning("scaling")')]
    assert finding.location.line == records[0].line and finding.location.function == "noisy"
    assert finding.gb_id == records[0].gb_id and finding.gb_type == records[0].gb_type
    assert finding.count == len(records)  # every record of the site, skipped or not
    assert f"fall back is at skip_reasons.py:{records[0].line}" in finding.why
    assert finding.title.startswith("`in_loop` runs eagerly (and 3 more frames)")
    assert finding.impact.frames_skipped == 4 and finding.impact.eager_lines > 4


def test_mbart_names_the_model_body_torch_skipped():
    """The issue's example: the break is in `PreTrainedConfig.use_return_dict`, torch skipped `MBartModel.forward`."""
    log = load_artifacts(DATA / "mbart_eval")
    [metrics] = [m for m in log.metrics if m.fail_type]
    report = _report("mbart_eval")
    [finding] = _fallbacks(report)
    assert to_json(finding)["skipped_frames"] == [
        {"function": "MBartModel.forward", "file": metrics.co_filename, "line": metrics.co_firstlineno}
    ]
    assert finding.title.startswith("`MBartModel.forward` runs eagerly")
    assert finding.location.function == "PreTrainedConfig.use_return_dict" and finding.gb_id == "GB0291"
    assert "attribute access `.use_return_dict`" in finding.why
    assert report.summary.fallbacks_to_eager == 1


def test_findings_other_than_fallbacks_list_no_skipped_frames():
    for finding in _report("mbart_eval").findings:
        assert (to_json(finding)["skipped_frames"] != []) == (finding.kind == Kind.FRAME_SKIPPED)


def test_a_module_compiled_but_never_called_is_a_finding_that_fails_the_gate():
    run = pipeline.reread(DATA / "generate_wrap")
    [finding] = run.report.findings
    script = (DATA / "generate_wrap.py").read_text(encoding="utf-8")
    assert finding.kind == Kind.NOTHING_COMPILED and finding.code == "TCD407"
    assert finding.location.line == _line("model = torch.compile(model", script)
    assert "`Generator`" in finding.why and "`model.generate()`" in finding.why
    assert "model.forward = torch.compile(model.forward)" in finding.fix.summary
    assert run.report.summary.graphs == 0
    for criteria in (GateCriteria().or_default(), GateCriteria(max_graph_breaks=5), GateCriteria(fullgraph=True)):
        gated = pipeline.gate(run, pipeline.GateOptions(criteria))
        assert pipeline.exit_code(gated) == 1, criteria
        assert "nothing was compiled" in gated.report.gate.reason_for(gated.report.findings[0])


def test_dynamo_disabled_is_the_reason_nothing_was_compiled():
    [finding] = _report("dynamo_disabled").findings
    assert finding.kind == Kind.NOTHING_COMPILED and "TORCHDYNAMO_DISABLE=1" in finding.why


@pytest.mark.parametrize("name", ["skip_reasons", "mbart_eval"])
def test_a_run_that_compiled_something_has_no_nothing_compiled_finding(name):
    assert all(f.kind != Kind.NOTHING_COMPILED for f in _report(name).findings)
