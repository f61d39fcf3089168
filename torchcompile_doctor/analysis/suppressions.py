"""`# doctor: ignore[TCD101]` comments: drop the findings they name on their line, and report the
comments that suppressed nothing (they hide nothing now, and may hide something new later)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from torchcompile_doctor.analysis.code import CodeMap
from torchcompile_doctor.analysis.index import AnalysisIndex
from torchcompile_doctor.analysis.worded_findings import finding_from_rule
from torchcompile_doctor.model.findings import UnusedSuppressionEvidence
from torchcompile_doctor.model.report import Finding, Kind
from torchcompile_doctor.rules.binding import Binding, Params, RuleSet
from torchcompile_doctor.rules.facts import Facts

_COMMENT = re.compile(r"#\s*doctor:\s*ignore(?:\[(?P<codes>[^\]]*)\])?")
ALL = "*"


@dataclass(frozen=True, kw_only=True)
class UnusedSuppressionFacts(Facts):
    comment: str | None = None  # the comment as written


UNUSED_SUPPRESSION = Binding("unused_suppression", Params, UnusedSuppressionFacts)


@dataclass(frozen=True)
class Suppression:
    file: str
    line: int
    code: str  # a rule code, or "*" for a bare `# doctor: ignore`


def suppressions_in(code_map: CodeMap, files: Iterable[str]) -> list[Suppression]:
    found = []
    for file in sorted(set(files)):
        for number, text in enumerate(code_map.lines(file) or (), start=1):
            if "doctor:" not in text:
                continue
            for match in _COMMENT.finditer(text):
                codes = [c.strip().upper() for c in (match["codes"] or ALL).split(",") if c.strip()]
                found += [Suppression(file, number, code) for code in codes]
    return found


def _lines_of(finding: Finding) -> list[tuple[str, int]]:
    return [(loc.file, loc.line) for loc in (finding.location, finding.user_frame) if loc is not None]


def apply(findings: list[Finding], suppressions: list[Suppression]) -> tuple[list[Finding], list[Finding], set[Any]]:
    """(kept findings, suppressed findings, the suppressions that were used)."""
    by_line: dict[tuple[str, int], list[Suppression]] = {}
    for suppression in suppressions:
        by_line.setdefault((suppression.file, suppression.line), []).append(suppression)
    kept, dropped, used = [], [], set()
    for finding in findings:
        matching = [s for place in _lines_of(finding) for s in by_line.get(place, ()) if s.code in (finding.code, ALL)]
        if matching and finding.kind != Kind.TARGET_ERROR:  # the target failing is never hidden
            dropped.append(finding)
            used.update(matching)
        else:
            kept.append(finding)
    return kept, dropped, used


def suppress(
    index: AnalysisIndex, findings: list[Finding], rules: RuleSet[Params]
) -> tuple[list[Finding], list[Finding]]:
    """(kept, suppressed): `# doctor: ignore[...]` comments in the user's files applied, and each comment
    that suppressed nothing reported (TCD406)."""
    files = {loc.file for f in findings for loc in (f.location, f.user_frame) if loc is not None}
    files = {f for f in files if not index.code.is_library(f)} | index.user_files()
    found = suppressions_in(index.code, files)
    kept, dropped, used = apply(findings, found)
    for unused in [s for s in found if s not in used]:
        location = index.location(unused.file, unused.line, "")
        comment = "# doctor: ignore" if unused.code == ALL else f"# doctor: ignore[{unused.code}]"
        facts = UnusedSuppressionFacts(comment=comment, where=location.where)
        evidence = UnusedSuppressionEvidence(code=unused.code)
        kept.append(finding_from_rule(rules.only, location=location, facts=facts, evidence=evidence))
    return kept, dropped
