"""A finding worded by its rule: the rule's templates filled with a detector's facts, the fix transform applied,
and the fingerprint that identifies the finding across runs and ranks."""

from __future__ import annotations

import hashlib

from torchcompile_doctor.model.findings import Evidence, Impact, NoEvidence, NoImpact, SkippedFrame
from torchcompile_doctor.model.report import Finding, Fix, Location, SourceLine
from torchcompile_doctor.rules.catalogue import Rule
from torchcompile_doctor.rules.facts import Facts, worded
from torchcompile_doctor.rules.fixes import apply as apply_transform
from torchcompile_doctor.rules.fixes import code_only
from torchcompile_doctor.rules.rule_page import rule_help


def _fingerprint(code: str, display_file: str, function: str, source: str | None) -> str:
    text = f"{code}|{display_file}|{function}|{(source or '').strip()}"
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]


def finding_from_rule(
    rule: Rule,
    *,
    location: Location | None,
    facts: Facts,
    fix_line: SourceLine | None = None,
    identity: str = "",
    gb_id: str | None = None,
    gb_type: str | None = None,
    category: str | None = None,
    origin: str | None = None,
    reason_class: str | None = None,
    count: int = 1,
    call_sites: tuple[str, ...] = (),
    user_frame: Location | None = None,
    torch_says: str | None = None,
    changes: tuple[str, ...] = (),
    impact: Impact | None = None,
    evidence: Evidence | None = None,
    ranks: tuple[int, ...] = (0,),
    skipped_frames: tuple[SkippedFrame, ...] = (),
) -> Finding:
    """A finding worded by its rule's templates. `identity` stands in for the function in the fingerprint
    of a finding with no location (e.g. "launcher")."""
    if location is not None:  # prose quotes code, not its comment
        facts = facts.at(location.where, code_only(location.source or ""), location.function)
    before, after = apply_transform(rule.transform, fix_line.text if fix_line else None, facts)
    display = location.display_file if location else ""
    function = location.function if location else identity
    return Finding(
        code=rule.code,
        rule_name=rule.name,
        kind=rule.kind,
        severity=rule.severity,
        title=worded(rule.title, facts),
        location=location,
        user_frame=user_frame,
        gb_id=gb_id,
        gb_type=gb_type,
        category=category,
        origin=origin,
        reason_class=reason_class,
        count=count,
        call_sites=call_sites,
        why=worded(rule.why, facts),
        torch_says=torch_says,
        changes=changes,
        impact=impact if impact is not None else NoImpact(),
        evidence=evidence if evidence is not None else NoEvidence(),
        fix=Fix(worded(rule.fix, facts), before, after, rule.experiment, rewrite_at=fix_line if before else None),
        docs_url=rule.docs_url,
        fingerprint=_fingerprint(rule.code, display, function, location.source if location else None),
        ranks=ranks,
        skipped_frames=skipped_frames,
        rule_help=rule_help(rule.code),
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
