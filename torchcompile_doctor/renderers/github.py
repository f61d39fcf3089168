"""GitHub Actions workflow commands: one annotation per finding on the user's line, then one summary line."""

from __future__ import annotations

from torchcompile_doctor.model.paths import ELLIPSIS
from torchcompile_doctor.model.report import Finding, Report
from torchcompile_doctor.renderers._annotations import (
    annotation_site,
    ci_path,
    fails,
    findings_summary,
    gate_reason,
    message_parts,
)
from torchcompile_doctor.renderers._text import clean, plural
from torchcompile_doctor.renderers.options import DEFAULT_OPTIONS, RenderOptions

TOOL = "torchcompile-doctor"


def escape_data(text: str) -> str:
    """The message part, as @actions/core escapes it."""
    return clean(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A property value (file, title): the data escapes, and `:` and `,` which delimit properties."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(name: str, message: str, **properties: str | int | None) -> str:
    given = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items() if value is not None)
    return f"::{name} {given}::{escape_data(message)}" if given else f"::{name}::{escape_data(message)}"


def _command_name(report: Report, finding: Finding) -> str:
    if fails(report, finding):
        return "error"
    return "notice" if finding.severity == "info" else "warning"


def _annotation(report: Report, finding: Finding, base_dir: str | None) -> str:
    site = annotation_site(finding)
    file = ci_path(report, site.file, base_dir) if site else None
    if file is not None and file.startswith(ELLIPSIS):
        site = file = None  # a file on no root: GitHub could not place it, and its path would name the machine
    return command(
        _command_name(report, finding),
        "\n".join(message_parts(finding, gate_reason(report, finding))),
        file=file,
        line=site.line if site and site.line >= 1 else None,
        title=f"{finding.code} {finding.title}",
    )


def _summary(report: Report, base_dir: str | None) -> str:
    target = ci_path(report, report.target, base_dir)
    gate = report.gate
    if gate is None:
        return command("notice", f"{target}: {findings_summary(report)}", title=TOOL)
    if gate.passed:
        return command("notice", f"{target}: gate passed; {findings_summary(report)}", title=f"{TOOL} gate passed")
    failed = sum(1 for finding in report.findings if gate.reason_for(finding) is not None)
    head = f"{plural(failed, 'finding')} failed the gate" if failed else "the gate failed"
    lines = [f"{target}: {head}", *gate.violations]
    return command("error", "\n".join(lines), title=f"{TOOL} gate failed")


def render(report: Report, options: RenderOptions = DEFAULT_OPTIONS) -> str:
    lines = [_annotation(report, finding, options.base_dir) for finding in report.findings]
    lines.append(_summary(report, options.base_dir))
    return "\n".join(lines) + "\n"
