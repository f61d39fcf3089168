"""Text more than one format shares: the one sanitizer for text that comes from user code or torch, and the
sentences several formats say."""

from __future__ import annotations

import re

from torchcompile_doctor.report import Finding

# Terminal escape sequences (CSI and OSC), then the control characters XML 1.0 forbids (and DEL): none belong in
# any output, whether a terminal would obey them or a CI reader would reject them.
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?")
_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")

NO_FINDINGS = "No findings: one graph per compiled function, no recompiles."
NO_COMPILE = "No findings: what was read records no compiled graph."
NOT_RECORDED = "not recorded"


def no_findings(graphs: int, compiled: bool) -> str:
    """What a report without findings says: nothing compiled is not "one graph per function"."""
    return NO_FINDINGS if graphs or compiled else NO_COMPILE


def torch_label(version: str | None) -> str:
    return version or f"version {NOT_RECORDED}"


def target_line(status: str, exit_code: int | None) -> str:
    """How the target ended, or that the logs read do not say (a bare trace, a text log that ends normally)."""
    if status == "unknown":
        return f"target: how it ended is {NOT_RECORDED} in what was read"
    return f"target: {status}, exit code {exit_code}"


def clean(text: str) -> str:
    """Text with terminal escapes and characters illegal in XML 1.0 removed (\\t, \\n and \\r stay: the machine
    formats escape them)."""
    return _ILLEGAL.sub("", _ANSI.sub("", text))


def clean_for_display(text: str) -> str:
    """clean() for the formats people read (terminal, markdown), where a \\r would overwrite or split a line."""
    return clean(text).replace("\r", "")


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _percent(share: float) -> str:
    return "<1%" if 0 < share < 0.005 else f"{share:.0%}"


def finding_figures(finding: Finding, total_compile_seconds: float) -> str:
    """The figures that ranked a finding, as the terminal's `figures:` line says them."""
    impact = finding.impact
    parts = []
    if impact.get("occurrences", 0) > 1 or finding.kind in ("graph_break", "frame_skipped"):
        parts.append(f"{impact.get('occurrences', finding.count)} occurrence(s)")
    if "compiles" in impact:
        parts.append(f"in {impact['compiles']} compile(s)")
    if impact.get("recompiles"):
        parts.append(f"{impact['recompiles']} recompile(s)")
    if impact.get("recompiles_caused"):
        parts.append(f"{impact['recompiles_caused']} recompile(s) caused")
    if impact.get("compile_seconds"):
        seconds = impact["compile_seconds"]
        share = ""
        if total_compile_seconds:
            share = f" ({_percent(seconds / total_compile_seconds)} of the run's compile time)"
        parts.append(f"{seconds:.2f} s compiling{share}")
    if impact.get("saved_seconds"):  # not spent in this run: no share of its compile time
        parts.append(f"{impact['saved_seconds']:.2f} s of compiling saved by {impact['hits']} cache hit(s)")
    if impact.get("limit"):
        parts.append(f"limit {impact['limit']}")
    return " · ".join(parts)
