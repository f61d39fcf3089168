"""Markdown for PR comments: a summary table, then the ranked findings."""

from __future__ import annotations

import html
import re
from typing import Any

from torchcompile_doctor.model.gate import GateResult
from torchcompile_doctor.model.report import Finding, Report, rank_list, target_ending
from torchcompile_doctor.renderers._compile_time_text import compile_time_lines
from torchcompile_doctor.renderers._cudagraph_text import cudagraph_details, cudagraph_headline
from torchcompile_doctor.renderers._text import (
    AT_YOUR_CODE,
    NOT_IN_THE_LOG,
    NOT_RECORDED,
    at_your_code,
    clean_for_display,
    measurement_label,
    no_findings,
    seconds_or_not,
    summary_line,
    torch_label,
)
from torchcompile_doctor.renderers.options import DEFAULT_OPTIONS, RenderOptions

_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")


def _escape(text: str) -> str:
    """Prose: our own text uses `code` spans on purpose. Outside them raw HTML is escaped; inside them
    Markdown shows text as it is (an escape would show as `&lt;`), so they are left alone. Spans are
    found the way Markdown pairs backticks, so a backtick in user source cannot smuggle HTML out."""
    text = clean_for_display(text)
    parts, last = [], 0
    for span in _CODE_SPAN.finditer(text):
        parts += [html.escape(text[last : span.start()], quote=False), span.group(0)]
        last = span.end()
    return "".join(parts) + html.escape(text[last:], quote=False)


def _code(text: str) -> str:
    """Inline code that survives backticks in the text."""
    text = clean_for_display(text).replace("\n", " ")
    fence = "``" if "`" in text else "`"
    return f"{fence} {text} {fence}" if fence == "``" else f"`{text}`"


def _block(text: str) -> str:
    text = clean_for_display(text.replace("\t", "    "))
    fence = "````" if "```" in text else "```"
    return f"{fence}python\n{text}\n{fence}"


def _finding(finding: Finding, gate: GateResult | None = None, all_ranks: tuple[Any, ...] = ()) -> list[str]:
    where = finding.location.where if finding.location else "-"
    lines = [
        f"### {finding.rank}. {finding.severity.upper()} {finding.code}: {_escape(finding.title)}",
        "",
        f"**Where:** {_code(where)}" + (f" in {_code(finding.location.function)}" if finding.location else ""),
    ]
    failed = gate.reason_for(finding) if gate else None
    if failed:
        lines.insert(2, f"**Fails the gate:** {_escape(failed)}  ")
    if finding.location and finding.location.source:
        lines.append(f"**Line:** {_code(finding.location.source)}")
    if finding.user_frame:
        lines.append(f"**Your call site:** {_code(finding.user_frame.where)}")
    if len(all_ranks) > 1:
        every = " (all)" if set(finding.ranks) == set(all_ranks) else f" of {len(all_ranks)}"
        lines.append(f"**Ranks:** {rank_list(finding.ranks)}{every}")
    lines.append("")
    lines.append(_escape(finding.why))
    if finding.changes:
        lines += ["", "**What changed:** " + ", ".join(_code(c) for c in finding.changes)]
    if finding.fix:
        lines += ["", f"**Fix:** {_escape(finding.fix.summary)}"]
        if finding.fix.verified:
            lines += [
                "",
                f"**Verified** ({_code(finding.fix.verified.change)}): {_escape(summary_line(finding.fix.verified))}",
            ]
        label = measurement_label(finding.fix)
        if label:
            lines += ["", f"*{_escape(label)}*"]
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


TOP_FINDINGS = 5  # shown in full; the rest fold into one <details> block to keep PR comments short


def _target_exit(report: Report) -> str:
    """`exit `3``, `exit not recorded`, or how a run that was stopped ended (no exit code to show)."""
    if report.target_status == "unknown":
        return f"exit {NOT_RECORDED}"
    stopped = target_ending(report.target_status, report.target_exit_code)
    return stopped if stopped is not None else f"exit `{report.target_exit_code}`"


def _gate(gate: GateResult) -> list[str]:
    verdict = (
        "✅ passed"
        if gate.passed
        else "❌ failed" + (f": {len(gate.failures)} finding(s) fail it" if gate.failures else "")
    )
    lines = [f"**Gate {verdict}** ({', '.join(_code(c) for c in gate.criteria) or 'no criteria'})", ""]
    lines += [f"- {_escape(violation)}" for violation in gate.violations]
    if gate.baseline:
        b = gate.baseline
        lines.append(f"- baseline: {b.known} known, {b.new} new, {len(b.fixed)} fixed")
    return lines + ([""] if gate.violations or gate.baseline else [])


def _rank_table(report: Report) -> list[str]:
    lines = [
        f"{len(report.rank_table)} ranks (the table above: the worst rank's figures, breaks unique across ranks)",
        "",
        "| rank | graphs | graph breaks | recompiles | compile failures | compile time | DDP splits | target | log |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in report.rank_table:
        lines.append(
            f"| {row.rank} | {row.graphs if row.graphs is not None else NOT_IN_THE_LOG} | {row.graph_breaks} "
            f"| {row.recompiles} | {row.compile_failures} | {seconds_or_not(row.compile_time_s)} | {row.ddp_splits} "
            f"| {_escape(str(row.target_status))} | {_escape(str(row.log))} |"
        )
    return lines + [""]


def _lead(report: Report) -> list[str]:
    """What the user can change at their own lines, first: each such finding's rank, line and change."""
    rewrites = at_your_code(report)
    if not rewrites:
        return []
    lines = [f"**{AT_YOUR_CODE}**", ""]
    for rewrite in rewrites:
        after = _code(rewrite.code_after) if rewrite.code_after is not None else _escape(rewrite.moved_to or "")
        lines.append(f"- #{rewrite.rank} `{rewrite.code}` {_code(rewrite.where)}: {_code(rewrite.before)} -> {after}")
    return [*lines, ""]


def render(report: Report, options: RenderOptions = DEFAULT_OPTIONS) -> str:
    """Markdown has no options of its own: a PR comment looks the same wherever it is rendered."""
    s = report.summary
    lines = [
        f"## torchcompile-doctor: {_escape(report.display_target(options.base_dir))}",
        "",
        "| graphs | graph breaks | recompiles | recompile-limit hits | fallbacks to eager | compile failures "
        "| compile time |",
        "| --- | --- | --- | --- | --- | --- | --- |",
        f"| {s.graphs if s.graphs is not None else NOT_IN_THE_LOG} | {s.graph_breaks} | {s.recompiles} "
        f"| {s.recompile_limit_hits} | {s.fallbacks_to_eager} | {s.compile_failures} "
        f"| {seconds_or_not(s.compile_time_s)} |",
        "",
        f"backend `{report.backend}`, torch `{torch_label(report.torch_version)}`, target " + _target_exit(report),
        "",
    ]
    compile_time = compile_time_lines(report.compile_time)
    if compile_time:
        lines += [f"- {_escape(line)}" for line in compile_time] + [""]
    if report.cudagraphs is not None:
        lines += [f"**{_escape(cudagraph_headline(report.cudagraphs))}**", ""]
        lines += [f"- {_escape(line)}" for line in cudagraph_details(report.cudagraphs)] + [""]
    all_ranks = tuple(row.rank for row in report.rank_table)
    if len(all_ranks) > 1:
        lines += _rank_table(report)
    if report.gate is not None:
        lines += _gate(report.gate)
    if not report.findings:
        lines.append(no_findings(s.graphs, report.compile_time is not None))
    lines += _lead(report)
    for finding in report.findings[:TOP_FINDINGS]:
        lines += _finding(finding, report.gate, all_ranks)
    rest = report.findings[TOP_FINDINGS:]
    if rest:
        lines += [f"<details><summary>{len(rest)} more finding(s)</summary>", ""]
        for finding in rest:
            lines += _finding(finding, report.gate, all_ranks)
        lines += ["</details>", ""]
    for note in report.display_notes(options.base_dir):
        lines.append(f"> {_escape(note)}")
    return "\n".join(lines).rstrip() + "\n"
