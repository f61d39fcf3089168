"""The JSON report's schema (version 1; additions only, a rename is a version bump) pinned: the reports of the
golden, multi-rank, GPU, check and try-fixes captures, re-read as `doctor report` re-reads them and gated as
`doctor check` gates them, as JSON, against tests/data/report-schema-v1.json (JSON Schema draft 7: every object
lists its keys, and no other key may appear; tests/support/report_schema.py). Every rule case's report is checked
too, where tests/rules/test_rule_cases.py reads it. The golden files pin the values and the key order of a few."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest
from support.captures import CAPTURES, reread_options
from support.paths import DATA
from support.report_schema import SCHEMA, check_report_json

from torchcompile_doctor import pipeline
from torchcompile_doctor.events.model import ExplainResult
from torchcompile_doctor.model.gate import BaselineSummary, BaselineUpdate, GateCriteria
from torchcompile_doctor.renderers import render

GPU = DATA / "gpu"
STRICT_GATE = pipeline.GateOptions(GateCriteria(fullgraph=True, max_graph_breaks=0, max_recompiles=0, fail_on="low"))


def _sources() -> list[tuple[Path, ...]]:
    kept = [*sorted(CAPTURES.iterdir()), *sorted((DATA / "check").iterdir()), *sorted((DATA / "try_fixes").iterdir())]
    traces = [(p,) for p in [*kept, DATA / "traces" / "multirank"] if p.is_dir()]
    for case in sorted(GPU.iterdir()):
        if (case / "truth.log.gz").is_file():
            traces.append((case / "truth.log.gz",))
            if (case / "trace").is_dir():
                traces.append((case / "trace", case / "truth.log.gz"))
    return traces


def _documents(paths: tuple[Path, ...]) -> list[dict]:
    if len(paths) == 1 and not paths[0].name.endswith(".gz"):
        run = pipeline.reread(paths[0], reread_options(paths[0]))
    else:
        run = pipeline.reread_paths(list(paths))
    reports = [*run.reports, *pipeline.gate(run, STRICT_GATE).reports]
    return [json.loads(render(report, "json")) for report in reports]


def _validate(document: dict) -> None:
    check_report_json(document)


def test_the_schema_is_a_draft_7_schema():
    jsonschema.Draft7Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("paths", _sources(), ids=lambda paths: "+".join(p.name for p in paths))
def test_every_recorded_report_has_the_schema_s_keys(paths):
    for document in _documents(paths):
        _validate(document)


def test_what_no_recording_shows_has_the_schema_s_keys_too():
    """A function target's explain result, a baseline rewritten by --update-baseline, a fix that could not be
    measured: built on a recorded report, as the code that makes them would."""
    from torchcompile_doctor.model.findings import RunFigures, Verification

    report = pipeline.reread(DATA / "captures" / "helper_two_callsites").report
    unmeasured = Verification("a change", RunFigures(0, 0, 0, 0, 0, 0.0), None, False, "not measured", "boom")
    finding = report.findings[0]
    assert finding.fix is not None
    findings = (replace(finding, fix=replace(finding.fix, verified=unmeasured)), *report.findings[1:])
    explain = ExplainResult(graph_count=1, graph_break_count=0, break_reasons=(), ops_per_graph=(3,))
    report = replace(report, findings=findings, explain=explain)
    gated = pipeline.gate(pipeline.Run((report,)), STRICT_GATE).report
    assert gated.gate is not None
    baseline = BaselineSummary("b.json", "2.13.0", None, ("TCD101 s.py in f",), BaselineUpdate(1, 2, 3), 1, 2, ())
    _validate(json.loads(render(replace(gated, gate=replace(gated.gate, baseline=baseline)), "json")))


def test_a_renamed_key_fails_the_schema():
    document = _documents((DATA / "captures" / "helper_two_callsites",))[0]
    document["findings"][0]["rule_name"] = document["findings"][0].pop("rule")
    with pytest.raises(jsonschema.ValidationError):
        _validate(document)
