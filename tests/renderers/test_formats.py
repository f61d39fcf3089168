"""The CI formats (sarif, junit, github) read back by real consumers: the SARIF 2.1.0 schema, a JUnit XML
reader, and the workflow-command grammar of the GitHub toolkit."""

from __future__ import annotations

import builtins
import dataclasses
import inspect
import io
import json
import os
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import urlsplit

import jsonschema
import pytest
from junitparser import JUnitXml
from support.captures import CAPTURES, reread
from support.hostile import HOSTILE_TITLE
from support.paths import DATA

from torchcompile_doctor.analysis.code import CodeMap
from torchcompile_doctor.model.gate import GateFailure, GateResult
from torchcompile_doctor.model.json import to_json
from torchcompile_doctor.model.report import Finding, Fix, Location, Report, RunEnvironment, Summary
from torchcompile_doctor.renderers import FORMATS, Format, RenderOptions, render, render_all, renderer_for
from torchcompile_doctor.rules import load_catalogue
from torchcompile_doctor.rules.rule_page import rule_help
from torchcompile_doctor.source_files import read_source_file

# From oasis-tcs/sarif-spec, Documents/CommitteeSpecifications/2.1.0/sarif-schema-2.1.0.json, unchanged.
SCHEMA = json.loads((DATA / "sarif-schema-2.1.0.json").read_text())
BASE = "/home/dev/project"
IN_BASE = RenderOptions(base_dir=BASE)
LIBRARY = "/usr/lib/python3.11/site-packages/somelib/core.py"
RECORDED_ROOT = str(Path(reread(CAPTURES / "helper_two_callsites").target).parent)  # where the captures ran


def _location(file: str, line: int, function: str = "forward", source: str | None = "y = x + 1") -> Location:
    return Location(file=file, line=line, function=function, source=source)


def _finding(code: str, severity: str, title: str, location: Location | None, **fields) -> Finding:
    """A finding of rule `code`, carrying what the catalogue says of the rule as the analysis's findings do."""
    defaults = dict(
        rule_help=rule_help(code),
        kind="graph_break",
        why=f"why {code}",
        fix=Fix(f"fix {code}"),
        fingerprint=f"fp-{code}",
        rule_name=f"rule-{code.lower()}",
    )
    return Finding(code=code, severity=severity, title=title, location=location, **{**defaults, **fields})


def _report(findings=(), gate: GateResult | None = None, target: str = f"{BASE}/train.py") -> Report:
    return Report(
        tool_version="0.1.0",
        torch_version="2.13.0+cpu",
        target=target,
        backend="eager",
        target_exit_code=0,
        target_status="ok",
        summary=Summary(graphs=3, graph_breaks=1, recompiles=2, compile_time_s=1.5),
        findings=tuple(findings),
        gate=gate,
    )


# One finding of every severity, and every kind of place: the user's file, a library break reached from the
# user's line, a file outside the base dir, no location at all, and code with no file (`<frozen runpy>`).
CRITICAL = _finding("TCD402", "critical", "`step` hit the recompile limit", _location(f"{BASE}/train.py", 12))
LIBRARY_BREAK = _finding(
    "TCD102",
    "high",
    "A library's logging call splits the graph",
    _location(LIBRARY, 40, "warning_once", "logger.warning(msg)"),
    user_frame=_location(f"{BASE}/model/net.py", 88, "forward", "out = self.lib(x)"),
)
MEDIUM = _finding("TCD202", "medium", "`step` recompiles for each new integer value", _location(f"{BASE}/train.py", 20))
LOW = _finding("TCD111", "low", "An explicit `torch._dynamo.graph_break()`", _location("/elsewhere/util.py", 5))
NOWHERE = _finding("TCD406", "info", "Unused suppression", None, kind="unused_suppression", fix=None)
FROZEN = _finding("TCD404", "info", "Performance hint", _location("<frozen runpy>", 88), kind="perf_hint")
MIXED = _report([CRITICAL, LIBRARY_BREAK, MEDIUM, LOW, NOWHERE, FROZEN])

VIOLATIONS = ("5 recompiles > --max-recompiles 4", "3 graphs > --max-graphs 2")
GATED = dataclasses.replace(
    MIXED,
    gate=GateResult(
        passed=False,
        criteria=("--max-recompiles 4", "--max-graphs 2"),
        failures=(GateFailure(MEDIUM.fingerprint, "2 of 5 recompiles (--max-recompiles 4)"),),
        violations=VIOLATIONS,
    ),
)
HOSTILE = _report(
    [
        _finding(
            "TCD199",
            "high",
            HOSTILE_TITLE,
            _location(f"{BASE}/my dir/odd,name:1.py", 7, "f", "print('%s, %s' % (a, b))  # \x1b[1mx:y\x00"),
            why="bad\x00chars\x0bhere\x1f and <b>html</b> & 100%",
        )
    ]
)


def _sarif(report: Report, base_dir: str | None = None) -> dict:
    log = json.loads(render(report, "sarif", RenderOptions(base_dir=base_dir)))
    jsonschema.validate(log, SCHEMA, cls=jsonschema.Draft7Validator, format_checker=jsonschema.FormatChecker())
    _check_uris(log)
    return log


_URI_CHARACTERS = re.compile(r"[A-Za-z0-9\-._~%!$&'()*+,;=:@/]*")


def _check_uris(value: object) -> None:
    """The schema's `uri` formats, checked here: jsonschema skips them unless an RFC 3986 package is installed."""
    if isinstance(value, list):
        for item in value:
            _check_uris(item)
    if not isinstance(value, dict):
        return
    for key, item in value.items():
        if key in ("helpUri", "informationUri"):
            parsed = urlsplit(item)
            assert parsed.scheme == "https" and parsed.netloc, item
        elif key == "uri":
            assert _URI_CHARACTERS.fullmatch(item) and urlsplit(item).scheme in ("", "file"), item
        else:
            _check_uris(item)


def _results_by_rule(log: dict) -> dict[str, dict]:
    return {result["ruleId"]: result for result in log["runs"][0]["results"]}


# ---------------------------------------------------------------------------------------------- every format


def test_every_format_choice_has_a_renderer():
    from torchcompile_doctor.settings import REPORT_FORMATS

    assert {"sarif", "junit", "github"} <= set(FORMATS) == set(REPORT_FORMATS)
    for fmt in FORMATS:
        text = render(MIXED, fmt, RenderOptions(color=False, width=100, base_dir=BASE))
        assert callable(renderer_for(fmt)) and text.endswith("\n") and text.strip()


def test_every_format_is_one_module_taking_render_options():
    assert FORMATS == tuple(Format)
    for fmt in Format:
        assert list(inspect.signature(renderer_for(fmt)).parameters) == ["report", "options"]
    with pytest.raises(TypeError):
        render(MIXED, "terminal", color=False)  # type: ignore[call-arg]  # options are typed, not **kwargs
    with pytest.raises(dataclasses.FrozenInstanceError):
        IN_BASE.base_dir = "/elsewhere"  # type: ignore[misc]


def test_a_location_carries_the_lines_around_it_from_the_analysis(tmp_path):
    source = tmp_path / "model.py"
    source.write_text("def f(x):\n\ty = x + 1\n    return y\n")
    code = CodeMap(str(tmp_path), (), read_source_file)
    assert code.location(str(source), 2, "f").context == ((1, "def f(x):"), (2, "\ty = x + 1"), (3, "    return y"))
    assert code.location(str(source), 1, "f").context == ((1, "def f(x):"), (2, "\ty = x + 1"))
    assert code.location(str(source), 9, "f").context == ()  # past the end: the file changed since the capture
    assert code.location(str(tmp_path / "gone.py"), 2, "f").context == ()
    assert "context" not in to_json(code.location(str(source), 2, "f"))  # type: ignore[operator]  # the schema is unchanged


def _refuse_io(*args, **kwargs):
    raise AssertionError(f"a renderer did I/O: {args}")


@pytest.mark.parametrize("fmt", FORMATS)
def test_renderers_do_no_io(fmt, monkeypatch):
    """The source lines come with the report (`doctor report` prints the same on any machine), and colour,
    width and paths come with the options: with files, the cwd, the terminal and the environment out of
    reach, every format renders exactly what it rendered before."""
    reports = [reread(p) for p in sorted(CAPTURES.iterdir()) if p.is_dir()]
    options = RenderOptions(color=True, width=90, base_dir=RECORDED_ROOT, show_guards=True)
    expected = [render(report, fmt, options) for report in reports]  # modules imported, the catalogue cached
    with monkeypatch.context() as patched:  # undone before pytest itself asks the terminal how to report
        for module, name in ((builtins, "open"), (io, "open"), (os, "getcwd"), (os, "get_terminal_size")):
            patched.setattr(module, name, _refuse_io)
        patched.setattr(shutil, "get_terminal_size", _refuse_io)
        for variable, value in {"TERM": "dumb", "NO_COLOR": "1", "FORCE_COLOR": "", "COLUMNS": "40"}.items():
            patched.setenv(variable, value)
        rendered = [render(report, fmt, options) for report in reports]
    assert rendered == expected
    if fmt == "terminal":
        assert "➤    10 │     TIMINGS.setdefault(name, []).append(time.perf_counter())" in "".join(expected)


# ---------------------------------------------------------------------------------------------------- sarif


@pytest.mark.parametrize(
    "report",
    [MIXED, GATED, HOSTILE, _report(), *(reread(p) for p in sorted(CAPTURES.iterdir()) if p.is_dir())],
    ids=lambda r: f"{Path(r.target).stem}-{len(r.findings)}-{'gate' if r.gate else 'plain'}",
)
@pytest.mark.parametrize("base_dir", [None, BASE, RECORDED_ROOT])
def test_sarif_is_valid_against_the_official_schema(report, base_dir):
    log = _sarif(report, base_dir=base_dir)
    assert log["version"] == "2.1.0" and log["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "torchcompile-doctor" and driver["version"] == report.tool_version
    rule_ids = [rule["id"] for rule in driver["rules"]]
    assert len(rule_ids) == len(set(rule_ids))
    for result in run["results"]:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
    assert set(rule_ids) == {result["ruleId"] for result in run["results"]}


def test_sarif_levels_follow_severity_without_a_gate():
    results = _results_by_rule(_sarif(MIXED))
    levels = {code: result["level"] for code, result in results.items()}
    assert levels == {
        "TCD402": "error",
        "TCD102": "error",
        "TCD202": "warning",
        "TCD111": "warning",
        "TCD406": "note",
        "TCD404": "note",
    }
    assert results["TCD202"]["partialFingerprints"] == {"torchcompileDoctor/v1": MEDIUM.fingerprint}
    message = results["TCD202"]["message"]["text"]
    assert message.startswith(MEDIUM.title) and "why TCD202" in message and "Fix: fix TCD202" in message


def test_sarif_gate_marks_the_failing_finding_and_reports_violations():
    log = _sarif(GATED, base_dir=BASE)
    run = log["runs"][0]
    results = run["results"]
    by_rule = {r["ruleId"]: r for r in results if r["ruleId"] != "doctor-gate"}
    assert by_rule["TCD202"]["level"] == "error"  # medium, but the gate failed it
    assert "Fails the gate: 2 of 5 recompiles" in by_rule["TCD202"]["message"]["text"]
    assert by_rule["TCD111"]["level"] == "warning" and by_rule["TCD402"]["level"] == "error"
    gate_results = [r for r in results if r["ruleId"] == "doctor-gate"]
    assert [r["message"]["text"] for r in gate_results] == list(VIOLATIONS)
    assert all(r["level"] == "error" and "locations" not in r for r in gate_results)
    gate_rule = next(rule for rule in run["tool"]["driver"]["rules"] if rule["id"] == "doctor-gate")
    assert gate_rule["defaultConfiguration"]["level"] == "error"
    assert run["properties"]["gate"]["passed"] is False


def test_sarif_locations_are_the_users_lines_relative_to_the_base_dir():
    run = _sarif(MIXED, base_dir=BASE)["runs"][0]
    assert "originalUriBaseIds" not in run  # the checkout's machine path stays on the machine
    results = _results_by_rule({"runs": [run]})

    library = results["TCD102"]
    (location,) = library["locations"]
    physical = location["physicalLocation"]
    assert physical["artifactLocation"] == {"uri": "model/net.py", "uriBaseId": "SRCROOT"}
    assert physical["region"] == {"startLine": 88, "snippet": {"text": "out = self.lib(x)"}}
    (related,) = library["relatedLocations"]
    assert related["physicalLocation"]["artifactLocation"] == {"uri": "somelib/core.py", "uriBaseId": "PYTHONLIBROOT"}
    assert related["physicalLocation"]["region"]["startLine"] == 40
    assert "inside library code at" in library["message"]["text"]

    assert "locations" not in results["TCD111"]  # /elsewhere/util.py: on no root, so no URI names the machine
    assert "locations" not in results["TCD406"] and "locations" not in results["TCD404"]


def test_sarif_paths_without_a_base_dir_are_relative_to_the_program():
    in_program = dataclasses.replace(HOSTILE, environment=RunEnvironment(program_dir=BASE))
    run = _sarif(in_program)["runs"][0]
    assert "originalUriBaseIds" not in run
    artifact = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact == {"uri": "my%20dir/odd%2Cname%3A1.py", "uriBaseId": "PROGRAMROOT"}
    assert "locations" not in _sarif(HOSTILE)["runs"][0]["results"][0]  # no program folder known: no root for it
    relative = _sarif(HOSTILE, base_dir=BASE + "/")["runs"][0]
    assert relative["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"] == {
        "uri": "my%20dir/odd%2Cname%3A1.py",
        "uriBaseId": "SRCROOT",
    }


def test_sarif_text_carries_no_terminal_escapes_or_control_characters():
    result = _sarif(HOSTILE, base_dir=BASE)["runs"][0]["results"][0]
    message = result["message"]["text"]
    snippet = result["locations"][0]["physicalLocation"]["region"]["snippet"]["text"]
    assert "<script>alert(1)</script> red" in message and "<b>html</b> & 100%" in message
    assert not re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f]", message + snippet)
    assert snippet == "print('%s, %s' % (a, b))  # x:y"


def test_sarif_rules_come_from_the_catalogue():
    catalogue = load_catalogue()
    findings = [
        _finding(rule.code, rule.severity, rule.title, _location(f"{BASE}/train.py", i + 1), kind=rule.kind)
        for i, rule in enumerate(catalogue)
    ]
    run = _sarif(_report(findings), base_dir=BASE)["runs"][0]
    rules = {rule["id"]: rule for rule in run["tool"]["driver"]["rules"]}
    assert set(rules) == {rule.code for rule in catalogue}
    level = {"critical": "error", "high": "error", "medium": "warning", "low": "warning", "info": "note"}
    for rule in catalogue:
        descriptor = rules[rule.code]
        assert descriptor["name"] == rule.name
        assert not re.search(r"[{}]", descriptor["shortDescription"]["text"]), descriptor["shortDescription"]
        assert descriptor["fullDescription"]["text"].startswith(str(dict(rule.explanation)["what_it_does"]).strip())
        assert descriptor["help"]["markdown"].startswith(f"# {rule.name} ({rule.code})")
        documented = rule.docs_url or dict(rule.explanation).get("references") or rule.match.gb_ids
        assert descriptor.get("helpUri", "").startswith("https://") if documented else "helpUri" not in descriptor
        assert descriptor["defaultConfiguration"]["level"] == level[rule.severity]
    assert rules["TCD201"]["shortDescription"]["text"] == "The function recompiles when an input changes dtype"
    assert rules["TCD199"]["shortDescription"]["text"] == "Graph break"


def test_sarif_rule_for_a_code_the_catalogue_lacks_comes_from_the_finding():
    unknown = _finding("TCD999", "low", "Something new", _location(f"{BASE}/train.py", 3), rule_name="something-new")
    (rule,) = _sarif(_report([unknown]))["runs"][0]["tool"]["driver"]["rules"]
    assert (rule["id"], rule["name"], rule["shortDescription"]["text"]) == ("TCD999", "something-new", "Something new")
    assert rule["defaultConfiguration"]["level"] == "warning" and "helpUri" not in rule


def test_sarif_render_many_gives_one_run_per_report():
    reports = [MIXED, dataclasses.replace(HOSTILE, target=f"{BASE}/other.py"), _report(target="/elsewhere/x.py")]
    log = json.loads(render_all(reports, "sarif", IN_BASE))
    jsonschema.validate(log, SCHEMA, cls=jsonschema.Draft7Validator)
    assert [len(run["results"]) for run in log["runs"]] == [6, 1, 0]
    ids = [run["automationDetails"]["id"] for run in log["runs"]]
    assert ids == [
        "torchcompile-doctor/train.py/",
        "torchcompile-doctor/other.py/",
        "torchcompile-doctor/…/x.py/",  # outside the checkout: its name, not the machine's path
    ]


# ---------------------------------------------------------------------------------------------------- junit


def _junit(text: str) -> JUnitXml:
    ET.fromstring(text.encode())  # well-formed for a strict parser too
    return JUnitXml.fromstring(text)


def _cases(suite) -> dict[str, object]:
    return {case.name: case for case in suite}


def test_junit_without_a_gate_fails_critical_and_high():
    xml = _junit(render(MIXED, "junit", IN_BASE))
    (suite,) = list(xml)
    assert suite.name == "train.py" and suite.time == 1.5
    assert (suite.tests, suite.failures, suite.errors, suite.skipped) == (6, 2, 0, 0)
    cases = _cases(suite)
    library = cases["TCD102 model/net.py:88 A library's logging call splits the graph"]
    assert library.classname == "torchcompile-doctor.TCD102"
    assert library._elem.get("file") == "model/net.py" and library._elem.get("line") == "88"
    (failure,) = library.result
    assert failure.message == "high: A library's logging call splits the graph" and failure.type == "TCD102"
    assert "Where: model/net.py:88 in forward" in failure.text and "Fix: fix TCD102" in failure.text
    assert "inside library code at" in failure.text
    passing = [case for case in suite if case.is_passed]
    assert {case.classname for case in passing} == {
        f"torchcompile-doctor.{c}" for c in ("TCD202", "TCD111", "TCD406", "TCD404")
    }
    assert all("Why: why" in case.system_out for case in passing)
    assert "TCD406 Unused suppression" in cases and "TCD404 Performance hint" in cases  # no file to point at
    assert "torch.compile health" not in cases


def test_junit_with_a_gate_fails_what_the_gate_failed():
    (suite,) = list(_junit(render(GATED, "junit", IN_BASE)))
    assert (suite.tests, suite.failures) == (8, 3)
    failed = {case.name: case.result[0] for case in suite if not case.is_passed}
    medium = failed["TCD202 train.py:20 `step` recompiles for each new integer value"]
    assert medium.message == "2 of 5 recompiles (--max-recompiles 4)" and "Why: why TCD202" in medium.text
    for violation in VIOLATIONS:
        assert failed[f"doctor-gate {violation}"].message == violation
    assert not any(name.startswith("TCD402") for name in failed)  # critical, but the gate let it through
    properties = {p.name: p.value for p in suite.properties()}
    assert properties["gate"] == "failed" and properties["gate_criteria"] == "--max-recompiles 4 --max-graphs 2"


@pytest.mark.parametrize(
    "report",
    [_report(), dataclasses.replace(_report([MEDIUM, LOW]), gate=GateResult(passed=True))],
    ids=["no-findings", "gate-passed"],
)
def test_junit_shows_a_pass_when_nothing_fails(report):
    (suite,) = list(_junit(render(report, "junit")))
    assert suite.failures == 0 and suite.tests == len(report.findings) + 1
    health = _cases(suite)["torch.compile health"]
    assert health.is_passed and health.classname == "torchcompile-doctor"
    assert health.system_out.startswith(f"{len(report.findings)} finding")


def test_junit_strips_characters_illegal_in_xml():
    text = render(HOSTILE, "junit", IN_BASE)
    assert not re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f]", text)
    assert "<script>" not in text and "&lt;script&gt;" in text
    (suite,) = list(_junit(text))
    (case,) = list(suite)
    assert case.name == "TCD199 my dir/odd,name:1.py:7 Graph break: a,b:c 100%\n<script>alert(1)</script> red"
    assert "Why: badcharshere and <b>html</b> & 100%" in case.result[0].text


def test_junit_render_many_gives_one_suite_per_report():
    reports = [MIXED, GATED, _report(target=f"{BASE}/clean.py")]
    xml = _junit(render_all(reports, "junit", IN_BASE))
    suites = list(xml)
    assert [s.name for s in suites] == ["train.py", "train.py", "clean.py"]
    assert [(s.tests, s.failures) for s in suites] == [(6, 2), (8, 3), (1, 0)]
    assert (xml.tests, xml.failures) == (15, 5)


# --------------------------------------------------------------------------------------------------- github

COMMAND = re.compile(r"^::(?P<name>error|warning|notice)(?: (?P<props>[^:]*))?::(?P<message>.*)$")


def _unescape(text: str) -> str:
    return text.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",").replace("%25", "%")


def _commands(text: str) -> list[tuple[str, dict[str, str], str]]:
    commands = []
    for line in text.splitlines():
        match = COMMAND.match(line)
        assert match, line
        props = dict(p.split("=", 1) for p in match["props"].split(",")) if match["props"] else {}
        assert all(":" not in v and "," not in v for v in props.values())
        commands.append((match["name"], {k: _unescape(v) for k, v in props.items()}, _unescape(match["message"])))
    return commands


def test_github_annotations_without_a_gate():
    commands = _commands(render(MIXED, "github", IN_BASE))
    assert len(commands) == len(MIXED.findings) + 1
    by_code = {props["title"].split()[0]: (name, props, message) for name, props, message in commands[:-1]}
    assert {code: name for code, (name, _, _) in by_code.items()} == {
        "TCD402": "error",
        "TCD102": "error",
        "TCD202": "warning",
        "TCD111": "warning",
        "TCD406": "notice",
        "TCD404": "notice",
    }
    assert by_code["TCD102"][1] == {
        "file": "model/net.py",
        "line": "88",
        "title": "TCD102 A library's logging call splits the graph",
    }
    assert by_code["TCD102"][2].startswith("why TCD102\nFix: fix TCD102\nThe break is inside library code")
    assert "file" not in by_code["TCD111"][1]  # /elsewhere/util.py: outside the checkout, no path of the machine
    assert "file" not in by_code["TCD406"][1] and "file" not in by_code["TCD404"][1]
    name, props, message = commands[-1]
    assert (name, props) == ("notice", {"title": "torchcompile-doctor"})
    assert message.startswith("train.py: 6 findings (1 critical, 1 high, 1 medium, 1 low, 2 info): 3 graphs")


def test_github_gate_failure():
    commands = _commands(render(GATED, "github", IN_BASE))
    names = {props["title"].split()[0]: name for name, props, _ in commands[:-1]}
    assert names["TCD202"] == "error" and names["TCD402"] == "warning" and names["TCD406"] == "notice"
    name, props, message = commands[-1]
    assert (name, props["title"]) == ("error", "torchcompile-doctor gate failed")
    assert message.splitlines() == ["train.py: 1 finding failed the gate", *VIOLATIONS]
    passed = dataclasses.replace(MIXED, gate=GateResult(passed=True))
    assert _commands(render(passed, "github"))[-1][1]["title"] == "torchcompile-doctor gate passed"


def test_github_escaping():
    text = render(HOSTILE, "github", IN_BASE)
    assert len(text.splitlines()) == 2 and "\x1b" not in text and "\x00" not in text
    line = text.splitlines()[0]
    assert line.startswith(
        "::error file=my dir/odd%2Cname%3A1.py,line=7,title=TCD199 Graph break%3A a%2Cb%3Ac 100%25%0A"
    )
    (name, props, message), _ = _commands(text)
    assert props["file"] == "my dir/odd,name:1.py" and props["line"] == "7"
    assert props["title"] == "TCD199 Graph break: a,b:c 100%\n<script>alert(1)</script> red"
    assert message.startswith("badcharshere and <b>html</b> & 100%\nFix: fix TCD199")


def test_render_all_without_render_many_separates_reports_by_a_blank_line():
    reports = [MIXED, _report(target=f"{BASE}/clean.py")]
    expected = "\n".join(render(r, "github", IN_BASE) for r in reports)
    assert render_all(reports, "github", IN_BASE) == expected
