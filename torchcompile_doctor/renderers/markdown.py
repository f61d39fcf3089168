"""Markdown for PR comments: a summary table, then the ranked findings."""

from __future__ import annotations

import html
import re

from torchcompile_doctor.report import Finding, Report

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def _escape(text: str) -> str:
    """Prose: our own text uses `code` spans on purpose; raw HTML and control characters are neutralised."""
    return html.escape(_CONTROL.sub("", text), quote=False)


def _code(text: str) -> str:
    """Inline code that survives backticks in the text."""
    text = _CONTROL.sub("", text).replace("\n", " ")
    fence = "``" if "`" in text else "`"
    return f"{fence} {text} {fence}" if fence == "``" else f"`{text}`"


def _block(text: str) -> str:
    fence = "````" if "```" in text else "```"
    return f"{fence}python\n{text}\n{fence}"


def _finding(finding: Finding) -> list[str]:
    where = finding.location.where if finding.location else "-"
    lines = [
        f"### {finding.rank}. {finding.severity.upper()} {finding.code}: {_escape(finding.title)}",
        "",
        f"**Where:** {_code(where)}" + (f" in {_code(finding.location.function)}" if finding.location else ""),
    ]
    if finding.location and finding.location.source:
        lines.append(f"**Line:** {_code(finding.location.source)}")
    if finding.user_frame:
        lines.append(f"**Your call site:** {_code(finding.user_frame.where)}")
    lines.append("")
    lines.append(_escape(finding.why))
    if finding.changes:
        lines += ["", "**What changed:** " + ", ".join(_code(c) for c in finding.changes)]
    if finding.fix:
        lines += ["", f"**Fix:** {_escape(finding.fix.summary)}"]
        if finding.fix.verified:
            from torchcompile_doctor.rules.experiments import summary_line

            lines += [
                "",
                f"**Verified** ({_code(finding.fix.verified['change'])}): "
                f"{_escape(summary_line(finding.fix.verified))}",
            ]
        if finding.fix.before and finding.fix.after:
            lines += [
                "",
                "<details><summary>before / after</summary>",
                "",
                _block(finding.fix.before),
                "",
                _block(finding.fix.after),
                "",
                "</details>",
            ]
    lines.append("")
    return lines


def render(report: Report, **_: object) -> str:
    s = report.summary
    lines = [
        f"## torchcompile-doctor: {_escape(report.target)}",
        "",
        "| graphs | graph breaks | recompiles | recompile-limit hits | fallbacks to eager | compile failures "
        "| compile time |",
        "| --- | --- | --- | --- | --- | --- | --- |",
        f"| {s.graphs} | {s.graph_breaks} | {s.recompiles} | {s.recompile_limit_hits} | {s.fallbacks_to_eager} "
        f"| {s.compile_failures} | {s.compile_time_s:.2f} s |",
        "",
        f"backend `{report.backend}`, torch `{report.torch_version}`, target exit `{report.target_exit_code}`",
        "",
    ]
    if not report.findings:
        lines.append("No findings: one graph per compiled function, no recompiles.")
    for finding in report.findings:
        lines += _finding(finding)
    for note in report.notes:
        lines.append(f"> {_escape(note)}")
    return "\n".join(lines).rstrip() + "\n"
