"""JUnit XML for CI test tabs: one suite per report, one failing test case per finding that fails."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence

from torchcompile_doctor.model.gate import GateResult
from torchcompile_doctor.model.report import Finding, Report
from torchcompile_doctor.renderers._annotations import (
    annotation_site,
    ci_path,
    fails,
    findings_summary,
    gate_reason,
    library_note,
)
from torchcompile_doctor.renderers._text import clean
from torchcompile_doctor.renderers.options import DEFAULT_OPTIONS, RenderOptions

CLASS_PREFIX = "torchcompile-doctor"
HEALTH_CASE = "torch.compile health"
GATE_RULE = "doctor-gate"


def _element(parent: ET.Element, tag: str, text: str | None = None, **attributes: str) -> ET.Element:
    """A child element; every value passes through clean(), since ElementTree writes illegal XML characters as-is."""
    element = ET.SubElement(parent, tag, {key: clean(value) for key, value in attributes.items()})
    if text is not None:
        element.text = clean(text)
    return element


def _details(report: Report, finding: Finding, base_dir: str | None) -> str:
    """Why, fix and where, as the body of a failure or a passing case's output."""
    lines = [f"{finding.severity.upper()} {finding.code} ({finding.rule_name or finding.kind}): {finding.title}"]
    site = annotation_site(finding)
    if site is not None:
        lines.append(f"Where: {ci_path(report, site.file, base_dir)}:{site.line} in {site.function}")
        if site.source:
            lines.append(f"Line: {site.source}")
    note = library_note(finding)
    if note:
        lines.append(note)
    lines.append(f"Why: {finding.why}")
    if finding.changes:
        lines.append("What changed: " + "; ".join(finding.changes))
    if finding.fix is not None:
        lines.append(f"Fix: {finding.fix.summary}")
    if len(finding.call_sites) > 1:
        lines.append("Called from: " + ", ".join(finding.call_sites))
    if finding.docs_url:
        lines.append(f"Docs: {finding.docs_url}")
    lines.append(f"Fingerprint: {finding.fingerprint}")
    return "\n".join(lines)


def _finding_case(suite: ET.Element, report: Report, finding: Finding, base_dir: str | None) -> bool:
    """Adds the test case of one finding; True when it fails."""
    site = annotation_site(finding)
    attributes = {"classname": f"{CLASS_PREFIX}.{finding.code}", "name": f"{finding.code} {finding.title}"}
    if site is not None:
        path = ci_path(report, site.file, base_dir)
        attributes["name"] = f"{finding.code} {path}:{site.line} {finding.title}"
        attributes["file"] = path
        attributes["line"] = str(site.line)
    case = _element(suite, "testcase", **attributes)
    details = _details(report, finding, base_dir)
    if not fails(report, finding):
        _element(case, "system-out", details)
        return False
    message = gate_reason(report, finding) or f"{finding.severity}: {finding.title}"
    _element(case, "failure", details, message=message, type=finding.code)
    return True


def _violation_cases(suite: ET.Element, gate: GateResult) -> int:
    """One failing case per criterion the run as a whole failed; returns how many."""
    for violation in gate.violations:
        case = _element(suite, "testcase", classname=f"{CLASS_PREFIX}.{GATE_RULE}", name=f"{GATE_RULE} {violation}")
        body = "The run as a whole failed the gate" + (f" ({', '.join(gate.criteria)})" if gate.criteria else "")
        _element(case, "failure", f"{body}: {violation}", message=violation, type=GATE_RULE)
    return len(gate.violations)


def _suite(parent: ET.Element, report: Report, base_dir: str | None) -> tuple[int, int]:
    """Adds one report's suite; returns (tests, failures)."""
    suite = _element(
        parent,
        "testsuite",
        name=ci_path(report, report.target, base_dir),
        tests="0",
        failures="0",
        errors="0",
        skipped="0",
        time=f"{report.summary.compile_time_s or 0.0:.3f}",  # a number: 0 where a text log holds no compile time
    )
    properties = _element(suite, "properties")
    gate = report.gate
    for name, value in (
        ("tool_version", report.tool_version),
        ("torch_version", report.torch_version),
        ("backend", report.backend),
        ("target_status", report.target_status),
        ("gate", None if gate is None else ("passed" if gate.passed else "failed")),
        ("gate_criteria", " ".join(gate.criteria) if gate is not None and gate.criteria else None),
    ):
        if value is not None:
            _element(properties, "property", name=name, value=str(value))
    tests = failures = _violation_cases(suite, gate) if gate is not None else 0
    for finding in report.findings:
        failures += _finding_case(suite, report, finding, base_dir)
        tests += 1
    if failures == 0:
        case = _element(suite, "testcase", classname=CLASS_PREFIX, name=HEALTH_CASE)
        _element(case, "system-out", findings_summary(report))
        tests += 1
    suite.set("tests", str(tests))
    suite.set("failures", str(failures))
    return tests, failures


def _document(reports: Iterable[Report], base_dir: str | None) -> str:
    root = ET.Element("testsuites", {"name": "torchcompile-doctor"})
    tests = failures = 0
    time = 0.0
    for report in reports:
        suite_tests, suite_failures = _suite(root, report, base_dir)
        tests, failures = tests + suite_tests, failures + suite_failures
        time += report.summary.compile_time_s or 0.0
    root.attrib.update(tests=str(tests), failures=str(failures), errors="0", skipped="0", time=f"{time:.3f}")
    ET.indent(root, space="  ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def render(report: Report, options: RenderOptions = DEFAULT_OPTIONS) -> str:
    return _document([report], options.base_dir)


def render_many(reports: Sequence[Report], options: RenderOptions = DEFAULT_OPTIONS) -> str:
    """One `<testsuites>` document, one suite per report."""
    return _document(reports, options.base_dir)
