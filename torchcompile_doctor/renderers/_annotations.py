"""What the CI formats (sarif, junit, github) share: the line a finding is annotated at, how its path is
written, whether it fails, and the summary line."""

from __future__ import annotations

import os
from pathlib import PurePath

from torchcompile_doctor.model.paths import display_text
from torchcompile_doctor.model.report import Finding, Location, Report
from torchcompile_doctor.renderers._text import compile_phrase, graphs_phrase, plural

# A finding's severity as a CI level when no gate decides: critical and high fail a plain `doctor explain`.
SEVERITY_LEVEL = {"critical": "error", "high": "error", "medium": "warning", "low": "warning", "info": "note"}
FAILING_SEVERITIES = ("critical", "high")


def annotation_site(finding: Finding) -> Location | None:
    """The line to annotate: for a break inside library code, the user's own line that called in."""
    site = finding.user_frame or finding.location
    if site is None or is_pseudo_file(site.file):
        return None
    return site


def is_pseudo_file(path: str) -> bool:
    """`<frozen runpy>`, `<string>`, `<stdin>`: code torch ran that has no file to point at."""
    return not path or (path.startswith("<") and path.endswith(">"))


def relative_path(file: str, base_dir: str | None) -> str | None:
    """`file` relative to `base_dir` with `/` separators, or None when it is not under it."""
    if not base_dir:
        return None
    path, base = PurePath(os.path.normpath(file)), PurePath(os.path.normpath(base_dir))
    if not path.is_absolute() or not base.is_absolute() or path == base or not path.is_relative_to(base):
        return None
    return path.relative_to(base).as_posix()


def ci_path(report: Report, file: str, base_dir: str | None) -> str:
    """The path CI tools match against the checkout: relative to `base_dir` when under it, else as people read it
    (`model.paths.display_path`: never a machine's absolute path)."""
    return relative_path(file, base_dir) or display_text(file, report.display_roots(base_dir, checkout_first=True))


def gate_reason(report: Report, finding: Finding) -> str | None:
    return report.gate.reason_for(finding) if report.gate is not None else None


def fails(report: Report, finding: Finding) -> bool:
    """With a gate (`doctor check`) the gate decides; without one, critical and high findings fail."""
    if report.gate is not None:
        return report.gate.reason_for(finding) is not None
    return finding.severity in FAILING_SEVERITIES


def library_note(finding: Finding) -> str | None:
    """Where the break really is when the annotation sits on the user's call site."""
    if finding.user_frame is None or finding.location is None:
        return None
    return f"The break is inside library code at {finding.location.where} in {finding.location.function}."


def message_parts(finding: Finding, reason: str | None) -> list[str]:
    """The body of an annotation: why, what changed, the fix, where a library break really is, the gate."""
    parts = [finding.why]
    if finding.changes:
        parts.append("What changed: " + "; ".join(finding.changes))
    if finding.fix is not None:
        parts.append(f"Fix: {finding.fix.summary}")
    note = library_note(finding)
    if note:
        parts.append(note)
    if reason:
        parts.append(f"Fails the gate: {reason}")
    return parts


def findings_summary(report: Report) -> str:
    """One line: how many findings of which severity, and the run's headline figures."""
    counts = [
        f"{n} {severity}"
        for severity in SEVERITY_LEVEL
        if (n := sum(1 for f in report.findings if f.severity == severity))
    ]
    s = report.summary
    figures = (
        f"{plural(s.graphs, 'graph') if s.graphs is not None else graphs_phrase(None)}, "
        f"{plural(s.graph_breaks, 'graph break')}, {plural(s.recompiles, 'recompile')}, "
        f"{plural(s.recompile_limit_hits, 'recompile-limit hit')}, {compile_phrase(s.compile_time_s)}"
    )
    head = plural(len(report.findings), "finding") + (f" ({', '.join(counts)})" if counts else "")
    return f"{head}: {figures}"
