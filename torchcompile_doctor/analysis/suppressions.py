"""`# doctor: ignore[TCD101]` comments: drop the findings they name on their line, and report the
comments that suppressed nothing (they hide nothing now, and may hide something new later)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from torchcompile_doctor.analysis.code import CodeMap
from torchcompile_doctor.model.report import Finding, Kind

_COMMENT = re.compile(r"#\s*doctor:\s*ignore(?:\[(?P<codes>[^\]]*)\])?")
ALL = "*"


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


def apply(findings: list[Finding], suppressions: list[Suppression]) -> tuple[list[Finding], list[Finding], set]:
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
