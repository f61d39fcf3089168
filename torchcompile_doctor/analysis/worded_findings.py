"""A finding worded by its rule: the rule's templates filled with a detector's facts, the fix transform applied,
and the fingerprint that identifies the finding across runs and ranks."""

from __future__ import annotations

import hashlib
import textwrap
from pathlib import Path

from torchcompile_doctor.model.edits import FileEdit
from torchcompile_doctor.model.findings import Evidence, Impact, NoEvidence, NoImpact, SkippedFrame
from torchcompile_doctor.model.report import Finding, Fix, Location, Rewrite, SourceLine
from torchcompile_doctor.rules.catalogue import Rule
from torchcompile_doctor.rules.facts import Facts, worded
from torchcompile_doctor.rules.rule_page import rule_help
from torchcompile_doctor.transforms.line_code import code_only
from torchcompile_doctor.transforms.registry import every_built
from torchcompile_doctor.transforms.site import Site, SiteFacts


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
    rewrites = _rewrites(rule.transforms, fix_line, facts)
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
        fix=_fix(worded(rule.fix, facts), rule, fix_line, rewrites),
        docs_url=rule.docs_url,
        fingerprint=_fingerprint(rule.code, display, function, location.source if location else None),
        ranks=ranks,
        skipped_frames=skipped_frames,
        rule_help=rule_help(rule.code),
    )


def _rewrites(transforms: tuple[str, ...], fix_line: SourceLine | None, facts: Facts) -> tuple[Rewrite, ...]:
    """Each of the rule's transforms that builds at the fix's line (the first is the one the report shows): on the
    whole file where the run read it, else on the line alone (then the report prints it and `doctor fix` has
    nothing to write: no edits)."""
    if not transforms or fix_line is None or not code_only(fix_line.text).strip():
        return ()
    site_facts = facts if isinstance(facts, SiteFacts) else SiteFacts()
    whole = fix_line.file_text is not None and fix_line.file is not None and fix_line.line is not None
    if whole:
        site = Site(fix_line.file or "", fix_line.file_text or "", fix_line.line or 0, site_facts)
    else:
        site = Site(fix_line.file or "", textwrap.dedent(fix_line.text).strip() + "\n", 1, site_facts)
    built, _ = every_built(transforms, site)
    path = Path(site.path) if whole else None
    return tuple(
        Rewrite(b.transform, b.hunk.before, b.hunk.after, tuple(FileEdit(path, e) for e in b.edits) if path else ())
        for b in built
    )


def _fix(summary: str, rule: Rule, fix_line: SourceLine | None, rewrites: tuple[Rewrite, ...]) -> Fix:
    """The finding's fix; its before/after is the hunk of the first transform's edit, which `doctor fix` writes."""
    if not rewrites or fix_line is None:
        return Fix(summary, None, None, rule.experiment, transforms=rule.transforms)
    shown = rewrites[0]
    return Fix(
        summary,
        shown.before,
        shown.after,
        rule.experiment,
        rewrite_at=fix_line,
        edits=shown.edits,
        transforms=rule.transforms,
        rewrites=tuple(r for r in rewrites if r.edits),
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
