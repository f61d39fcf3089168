"""SARIF 2.1.0 for code scanning (GitHub, GitLab, IDE viewers): one run per report, each rule described as the
catalogue describes it (the findings carry that: `Finding.rule_help`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import PurePath
from typing import Any
from urllib.parse import quote

from torchcompile_doctor.model.json import to_json
from torchcompile_doctor.model.paths import ELLIPSIS, display_path
from torchcompile_doctor.model.report import Finding, Location, Report, RuleHelp
from torchcompile_doctor.renderers._annotations import (
    SEVERITY_LEVEL,
    annotation_site,
    ci_path,
    gate_reason,
    is_pseudo_file,
    message_parts,
    relative_path,
)
from torchcompile_doctor.renderers._text import clean
from torchcompile_doctor.renderers.options import DEFAULT_OPTIONS, RenderOptions

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://pypi.org/project/torchcompile-doctor/"
FINGERPRINT_KEY = "torchcompileDoctor/v1"
# Where an artifact's relative URI starts: the checkout the doctor ran in, the program's folder when it is outside
# it, the Python library folders (site-packages, the standard library). No base's machine path is written: the
# viewer knows its checkout, and no other machine has the others.
SRCROOT = "SRCROOT"
PROGRAM_ROOT = "PROGRAMROOT"
LIBRARY_ROOT = "PYTHONLIBROOT"
GATE_RULE = "doctor-gate"

# How GitHub code scanning sorts non-security alerts.
_PROBLEM_SEVERITY = {"error": "error", "warning": "warning", "note": "recommendation"}


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else text + "."


def _help_uri(rule: RuleHelp | None, finding: Finding) -> str | None:
    references = list(rule.references) if rule else []
    gb_pages = list(rule.gb_pages) if rule else []
    candidates = [rule.docs_url if rule else None, finding.docs_url, *references, *gb_pages]
    return next((uri for uri in candidates if uri and uri.startswith(("https://", "http://"))), None)


def _rule_descriptor(code: str, rule: RuleHelp | None, finding: Finding) -> dict[str, Any]:
    """A reportingDescriptor from the catalogue entry; from the finding itself for a code the catalogue lacks."""
    severity = rule.severity if rule else finding.severity
    level = SEVERITY_LEVEL[severity]
    descriptor: dict[str, Any] = {
        "id": code,
        "name": rule.name if rule else (finding.rule_name or code),
        "shortDescription": {"text": rule.title if rule else clean(finding.title)},
    }
    if rule:
        parts = (rule.what_it_does, rule.why_is_this_bad)
        full = " ".join(_sentence(part) for part in parts if part) or _sentence(rule.why)
        descriptor["fullDescription"] = {"text": full}
        references = [f"- {r}" for r in rule.references]
        text = "\n\n".join(
            [full, f"Fix: {rule.fix}", *(["References:\n" + "\n".join(references)] if references else [])]
        )
        descriptor["help"] = {"text": text, "markdown": rule.page}
    help_uri = _help_uri(rule, finding)
    if help_uri:
        descriptor["helpUri"] = help_uri
    descriptor["defaultConfiguration"] = {"level": level}
    descriptor["properties"] = {
        "tags": ["torch.compile", rule.kind if rule else finding.kind],
        "problem.severity": _PROBLEM_SEVERITY[level],
        "severity": severity,
    }
    return descriptor


def _gate_descriptor() -> dict[str, Any]:
    text = (
        "The run as a whole failed a `doctor check` criterion (--fullgraph, --max-recompiles, --max-graphs, "
        "a baseline) that no single finding carries."
    )
    return {
        "id": GATE_RULE,
        "name": GATE_RULE,
        "shortDescription": {"text": "The doctor check gate failed"},
        "fullDescription": {"text": text},
        "help": {"text": text + " The result's message names the criterion and the measured value."},
        "defaultConfiguration": {"level": "error"},
        "properties": {"tags": ["torch.compile", "gate"], "problem.severity": "error"},
    }


def _artifact(report: Report, file: str, base_dir: str | None) -> dict[str, Any] | None:
    """An artifact's URI relative to one of the bases above; None for a file on none of them (its path would name
    the machine) or a pseudo-file."""
    if is_pseudo_file(file):
        return None
    path = PurePath(file)
    if not path.is_absolute():
        return {"uri": quote(path.as_posix())}
    for base, root in ((SRCROOT, base_dir), (PROGRAM_ROOT, report.environment.program_dir)):
        relative = relative_path(file, root)
        if relative is not None:
            return {"uri": quote(relative), "uriBaseId": base}
    shown = display_path(file, report.display_roots())
    if shown.startswith(ELLIPSIS):
        return None
    return {"uri": quote(shown), "uriBaseId": LIBRARY_ROOT}


def _location(
    report: Report, site: Location, base_dir: str | None, message: str | None = None
) -> dict[str, Any] | None:
    artifact = _artifact(report, site.file, base_dir)
    if artifact is None:
        return None
    physical: dict[str, Any] = {"artifactLocation": artifact}
    if site.line >= 1:
        region: dict[str, Any] = {"startLine": site.line}
        if site.source:
            region["snippet"] = {"text": clean(site.source)}
        physical["region"] = region
    location: dict[str, Any] = {"physicalLocation": physical}
    if site.function:
        location["logicalLocations"] = [{"name": clean(site.function), "kind": "function"}]
    if message:
        location["message"] = {"text": message}
    return location


def _message(finding: Finding, reason: str | None) -> str:
    parts = [_sentence(finding.title), *message_parts(finding, reason)]
    return clean("\n".join(p for p in parts if p))


def _result(report: Report, finding: Finding, rule_index: int, base_dir: str | None) -> dict[str, Any]:
    reason = gate_reason(report, finding)
    result: dict[str, Any] = {
        "ruleId": finding.code,
        "ruleIndex": rule_index,
        "level": "error" if reason else SEVERITY_LEVEL[finding.severity],
        "message": {"text": _message(finding, reason)},
    }
    site = annotation_site(finding)
    location = _location(report, site, base_dir) if site else None
    if location:
        result["locations"] = [location]
    if finding.user_frame is not None and finding.location is not None:
        related = _location(report, finding.location, base_dir, "the break inside library code")
        if related:
            result["relatedLocations"] = [{"id": 1, **related}]
    result["partialFingerprints"] = {FINGERPRINT_KEY: finding.fingerprint}
    result["occurrenceCount"] = max(1, finding.count)
    properties: dict[str, Any] = {"severity": finding.severity, "rank": finding.rank, "kind": finding.kind}
    for key, value in (
        ("gbId", finding.gb_id),
        ("gbType", finding.gb_type),
        ("category", finding.category or finding.reason_class),
        ("callSites", list(finding.call_sites)),
        ("ranks", list(finding.ranks) if finding.ranks != (0,) else None),
        ("gate", reason),
    ):
        if value:
            properties[key] = clean(value) if isinstance(value, str) else value
    result["properties"] = properties
    return result


def _run(report: Report, base_dir: str | None) -> dict[str, Any]:
    first_finding: dict[str, Finding] = {}
    for finding in report.findings:
        first_finding.setdefault(finding.code, finding)
    codes = sorted(first_finding)
    rules = [_rule_descriptor(code, first_finding[code].rule_help, first_finding[code]) for code in codes]
    index = {code: i for i, code in enumerate(codes)}
    results = [_result(report, finding, index[finding.code], base_dir) for finding in report.findings]
    violations = report.gate.violations if report.gate is not None else ()
    if violations:
        index[GATE_RULE] = len(rules)
        rules.append(_gate_descriptor())
        results += [
            {
                "ruleId": GATE_RULE,
                "ruleIndex": index[GATE_RULE],
                "level": "error",
                "message": {"text": clean(violation)},
            }
            for violation in violations
        ]
    target = ci_path(report, report.target, base_dir)
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "torchcompile-doctor",
                "version": report.tool_version,
                "informationUri": INFORMATION_URI,
                "rules": rules,
            }
        },
        # Distinct per target: code scanning keeps one analysis per category, and several runs share one upload.
        "automationDetails": {"id": f"torchcompile-doctor/{target}/"},
    }
    run["results"] = results
    properties: dict[str, Any] = {
        "target": target,
        "backend": report.backend,
        "torchVersion": report.torch_version,
        "targetStatus": report.target_status,
        "targetExitCode": report.target_exit_code,
        "summary": to_json(report.summary),
    }
    if report.gate is not None:
        properties["gate"] = to_json(report.gate)
    run["properties"] = properties
    return run


def _log(runs: list[dict[str, Any]]) -> str:
    log = {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": runs}
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def render(report: Report, options: RenderOptions = DEFAULT_OPTIONS) -> str:
    return _log([_run(report, options.base_dir)])


def render_many(reports: Sequence[Report], options: RenderOptions = DEFAULT_OPTIONS) -> str:
    """One SARIF log, one run per report (e.g. one per target or per rank)."""
    return _log([_run(report, options.base_dir) for report in reports])
