"""A graph-break finding made by hand for the fix engine's tests (tests/fix): the rule, where it is, and the
transforms its fix names; candidates read no more of a finding than that."""

from __future__ import annotations

from dataclasses import replace

from support.captures import reread
from support.paths import DATA
from torchcompile_doctor.model.report import Finding, Fix, Location, Report


def break_finding(
    code: str,
    title: str,
    location: Location,
    transforms: tuple[str, ...],
    *,
    user_frame: Location | None = None,
) -> Finding:
    return Finding(
        code=code,
        kind="graph_break",
        severity="high",
        title=title,
        location=location,
        user_frame=user_frame,
        fix=Fix(f"try {', '.join(transforms)}", transforms=transforms),
        why="",
        fingerprint=f"{code} {location.file}:{location.line}",
    )


def report_of(*findings: Finding) -> Report:
    """A recorded report (tests/data/engine) holding only these findings."""
    return replace(reread(DATA / "engine" / "keyword_scale.capture"), findings=findings)
