"""A finding worded by its rule: the rule's templates filled with a detector's facts, the fix transform
applied, and the fingerprint that identifies the finding across runs and ranks."""

from __future__ import annotations

import hashlib

from torchcompile_doctor.model.report import Finding, Fix, Location
from torchcompile_doctor.rules import Rule
from torchcompile_doctor.rules.fixes import apply as apply_transform
from torchcompile_doctor.rules.fixes import code_only


class _Template(dict):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def fill(template: str, facts: dict) -> str:
    """A rule template with the facts it names; a fact nobody knows stays `{name}`."""
    return template.format_map(_Template({k: v for k, v in facts.items() if v is not None}))


def _fingerprint(code: str, display_file: str, function: str, source: str | None) -> str:
    text = f"{code}|{display_file}|{function}|{(source or '').strip()}"
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]


def finding_from_rule(
    rule: Rule,
    *,
    location: Location | None,
    facts: dict,
    fix_line: str | None = None,
    identity: str = "",
    **fields,
) -> Finding:
    """A finding worded by its rule's templates. `identity` stands in for the function in the fingerprint
    of a finding with no location (e.g. "launcher")."""
    facts = {**facts}
    if location is not None:
        facts.setdefault("where", location.where)
        facts.setdefault("source", code_only(location.source or ""))  # prose quotes code, not its comment
        facts.setdefault("function", location.function)
    before, after = apply_transform(rule.transform, fix_line, facts)
    display = location.display_file if location else ""
    function = location.function if location else identity
    return Finding(
        code=rule.code,
        rule_name=rule.name,
        kind=rule.kind,
        severity=rule.severity,
        title=fill(rule.title, facts),
        location=location,
        why=fill(rule.why, facts),
        fix=Fix(fill(rule.fix, facts), before, after, experiment=rule.experiment),
        docs_url=rule.docs_url,
        fingerprint=_fingerprint(rule.code, display, function, location.source if location else None),
        **fields,
    )


def unique(findings: list[Finding]) -> list[Finding]:
    """The first finding of each fingerprint, in order."""
    seen: set[str] = set()
    kept = []
    for finding in findings:
        if finding.fingerprint not in seen:
            seen.add(finding.fingerprint)
            kept.append(finding)
    return kept
