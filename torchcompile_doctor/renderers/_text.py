"""Text more than one format shares: the one sanitizer for text that comes from user code or torch, and the
sentences several formats say."""

from __future__ import annotations

import re
from dataclasses import dataclass

from torchcompile_doctor.model.findings import Verification, impact_figures
from torchcompile_doctor.model.report import NOT_IN_THE_LOG as NOT_IN_THE_LOG  # the renderers say it from here
from torchcompile_doctor.model.report import Finding, Fix, Report, target_ending

# Terminal escape sequences (CSI and OSC), then the control characters XML 1.0 forbids (and DEL): none belong in
# any output, whether a terminal would obey them or a CI reader would reject them.
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?")
_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")

NO_FINDINGS = "No findings: one graph per compiled function, no recompiles."
NO_COMPILE = "No findings: what was read records no compiled graph."
NO_FINDINGS_IN_LOG = "No findings in what the log records (it holds no graphs: the run's TORCH_TRACE does)."
NOT_RECORDED = "not recorded"


def no_findings(graphs: int | None, compiled: bool) -> str:
    """What a report without findings says: nothing compiled is not "one graph per function", and a text log
    that holds no graphs says neither."""
    if graphs is None:
        return NO_FINDINGS_IN_LOG
    return NO_FINDINGS if graphs or compiled else NO_COMPILE


def graphs_phrase(graphs: int | None) -> str:
    """`3 graphs`, or that what was read cannot hold them (a text log), never a measured-looking 0."""
    return f"{graphs} graphs" if graphs is not None else f"graphs {NOT_IN_THE_LOG}"


def compile_phrase(seconds: float | None) -> str:
    """`compile 1.22 s`, or that what was read cannot hold it (a text log)."""
    return f"compile {seconds:.2f} s" if seconds is not None else f"compile time {NOT_IN_THE_LOG}"


def seconds_or_not(seconds: float | None) -> str:
    """`1.22 s` for a table cell, or `not in the log`."""
    return f"{seconds:.2f} s" if seconds is not None else NOT_IN_THE_LOG


def torch_label(version: str | None) -> str:
    return version or f"version {NOT_RECORDED}"


def target_line(status: str, exit_code: int | None) -> str:
    """How the target ended, or that the logs read do not say (a bare trace, a text log that ends normally)."""
    if status == "unknown":
        return f"target: how it ended is {NOT_RECORDED} in what was read"
    stopped = target_ending(status, exit_code)
    if stopped is not None:
        return f"target: {stopped}"
    return f"target: {status}, exit code {exit_code}" if exit_code is not None else f"target: {status}"


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


def finding_figures(finding: Finding, total_compile_seconds: float | None) -> str:
    """The figures that ranked a finding, as the terminal's `figures:` line says them."""
    figures = impact_figures(finding.impact)
    parts = []
    occurrences = figures.occurrences if figures.occurrences is not None else finding.count
    if (figures.occurrences or 0) > 1 or finding.kind in ("graph_break", "frame_skipped"):
        parts.append(f"{occurrences} occurrence(s)")
    if figures.compiles is not None:
        parts.append(f"in {figures.compiles} compile(s)")
    if figures.recompiles:
        parts.append(f"{figures.recompiles} recompile(s)")
    if figures.recompiles_caused:
        parts.append(f"{figures.recompiles_caused} recompile(s) caused")
    if seconds := figures.compile_seconds:
        share = ""
        if total_compile_seconds:
            share = f" ({_percent(seconds / total_compile_seconds)} of the run's compile time)"
        parts.append(f"{seconds:.2f} s compiling{share}")
    if figures.saved_seconds:  # not spent in this run: no share of its compile time
        parts.append(f"{figures.saved_seconds:.2f} s of compiling saved by {figures.hits} cache hit(s)")
    if figures.limit:
        parts.append(f"limit {figures.limit}")
    return " · ".join(parts)


NOT_MEASURED_YET = "not measured yet: doctor fix measures it on your program and writes it as a patch"
NOT_MEASURED = "not measured: a change of your code (re-run the doctor after it)"


def measurement_label(fix: Fix) -> str | None:
    """What stands behind a fix that this run did not measure (None: it was measured, and its figures say so)."""
    if fix.verified is not None:
        return None
    rewrite_placed = fix.rewrite_at is not None and fix.rewrite_at.line is not None
    return NOT_MEASURED_YET if fix.experiment is not None or rewrite_placed else NOT_MEASURED


def summary_line(verified: Verification) -> str:
    """`graph breaks 1 → 0, recompiles 2 → 0, graphs 5 → 1, compile 1.22 s → 0.41 s; the target ran OK`."""
    if verified.after is None:
        return f"{verified.change}: not measured ({verified.error or 'the re-run failed'})"
    before, after = verified.before, verified.after
    counts = (
        ("graph breaks", before.graph_breaks, after.graph_breaks),
        ("recompiles", before.recompiles, after.recompiles),
        ("graphs", before.graphs, after.graphs),
        ("recompile-limit hits", before.recompile_limit_hits, after.recompile_limit_hits),
        ("compile failures", before.compile_failures, after.compile_failures),
    )
    changes = [f"{label} {was} → {now}" for label, was, now in counts if was or now]
    changes.append(f"compile {before.compile_time_s:.2f} s → {after.compile_time_s:.2f} s")
    ran = "the target ran OK" if verified.ok else "the target FAILED with this change"
    return f"{verified.effect}: {', '.join(changes)}; {ran}"


AT_YOUR_CODE = "At your code: the findings whose fix is a change of a line of yours, in rank order"


@dataclass(frozen=True)
class Rewrite:
    """One line of the report's lead: a finding whose fix rewrites a line of the user's, and where that line is
    (the line the fix's `before` quotes: for a recompile's mark_dynamic the call, for an optimizer's lr the line
    that creates the optimizer; not necessarily the finding's own line)."""

    rank: int
    code: str
    where: str  # `file:line` of the rewritten line, the file as the report shows files
    before: str
    code_after: str | None  # the rewrite's first line of code, where it changes the line
    moved_to: str | None  # else where the rewrite moves the line to (its comment's words)

    @property
    def change(self) -> str:
        """`before` -> `after`, in the text formats' words."""
        after = f"`{self.code_after}`" if self.code_after is not None else self.moved_to
        return f"`{self.before}` -> {after}"


def at_your_code(report: Report) -> list[Rewrite]:
    """The rewrite of each finding whose fix changes a line of the user's own code at a known file and line (a
    rewrite is made only of the user's line: a library's line gets none), for the report's lead; empty where it
    would repeat the list (one finding, or every finding such a change)."""
    found = []
    for rank, finding in enumerate(report.findings, start=1):
        fix = finding.fix
        at = fix.rewrite_at if fix is not None else None
        if fix is None or not (fix.before and fix.after) or at is None or at.file is None or at.line is None:
            continue
        code_after, moved_to = _change(fix.before, fix.after)
        where = f"{report.display_file(at.file)}:{at.line}"
        found.append(Rewrite(rank, finding.code, where, at.text.strip(), code_after, moved_to))
    return found if 0 < len(found) < len(report.findings) else []


def _change(before: str, after: str) -> tuple[str | None, str | None]:
    """(the rewrite's first line of code, None), or (None, where it moves the line to: its comment) when that
    line stays as it is."""
    lines = [line.strip() for line in after.splitlines() if line.strip() and line.strip() != "..."]
    kept = {line.strip() for line in before.splitlines()}  # a hunk's lines the edit leaves as they are
    code = next((line for line in lines if not line.startswith("#") and line not in kept), "")
    if code:
        return code, None
    code = next((line for line in lines if not line.startswith("#")), "")
    moved_to = next((line.lstrip("# ").rstrip(":") for line in lines if line.startswith("#")), None)
    return (None, moved_to) if moved_to is not None else (code, None)
