"""The terminal report (rich): summary line, then each finding with its source, why, figures, fix."""

from __future__ import annotations

import io

from rich.console import Console
from rich.text import Text as _RichText

from torchcompile_doctor.model.findings import GuardOverheadFigures
from torchcompile_doctor.model.gate import GateResult
from torchcompile_doctor.model.report import Finding, Fix, Location, Report, rank_list
from torchcompile_doctor.renderers._compile_time_text import compile_time_lines
from torchcompile_doctor.renderers._cudagraph_text import cudagraph_lines
from torchcompile_doctor.renderers._text import (
    AT_YOUR_CODE,
    at_your_code,
    clean_for_display,
    compile_phrase,
    finding_figures,
    graphs_phrase,
    measurement_label,
    no_findings,
    summary_line,
    target_line,
    torch_label,
)
from torchcompile_doctor.renderers.options import DEFAULT_OPTIONS, RenderOptions


def Text(text: str = "", style: str = "") -> _RichText:  # noqa: N802 - a drop-in for rich's Text
    """rich Text with control characters (ANSI escapes from user source) removed; never markup."""
    return _RichText(clean_for_display(text), style=style)


_STYLE = {"critical": "bold white on red", "high": "bold red", "medium": "bold yellow", "low": "cyan", "info": "dim"}


def _source_block(location: Location | None) -> list[_RichText]:
    """The lines around the finding as the analysis read them; its one line when only that is known."""
    if location is None:
        return []
    if not location.context:
        return [Text(f"      {location.line:>5} │ {location.source}", style="bold")] if location.source else []
    out = []
    for number, text in location.context:
        marker = "  ➤ " if number == location.line else "    "
        style = "bold" if number == location.line else "dim"
        out.append(Text(f"  {marker}{number:>5} │ {text.expandtabs(4)}", style=style))
    return out


def _fix(console: Console, fix: Fix) -> None:
    console.print(Text("   fix: ", style="bold green").append(Text(fix.summary)))
    if fix.before and fix.after:
        for label, code in (("before", fix.before), ("after", fix.after)):
            for i, line in enumerate(code.splitlines()):
                prefix = f"     {label + ':':8}" if i == 0 else " " * 14
                console.print(Text(prefix + line, style="red" if label == "before" else "green"))
    if fix.verified:
        style = "green" if fix.verified.effect == "fixed" else "yellow"
        console.print(Text(f"   verified: {fix.verified.change}", style="bold " + style))
        console.print(Text(f"     {summary_line(fix.verified)}", style=style))
    measurement = measurement_label(fix)
    if measurement:
        console.print(Text(f"   {measurement}", style="dim"))


def _finding(console: Console, finding: Finding, report: Report) -> None:
    gate = report.gate
    all_ranks = tuple(row.rank for row in report.rank_table)
    header = Text(f"#{finding.rank} ")
    header.append(f" {finding.severity.upper()} ", style=_STYLE.get(finding.severity, ""))
    header.append(f" {finding.code} ", style="bold")
    header.append(finding.title)
    console.print(header)
    failed = gate.reason_for(finding) if gate else None
    if failed:
        console.print(Text(f"   fails the gate: {failed}", style="bold red"))
    location = finding.location
    if location is not None:
        tags = " · ".join(t for t in (finding.gb_id, finding.category or finding.reason_class) if t)
        console.print(
            Text(f"   at {location.where} in {location.function}" + (f"   ({tags})" if tags else ""), style="cyan")
        )
    if len(all_ranks) > 1:  # several ranks: on which ones it happened
        every = " (all)" if set(finding.ranks) == set(all_ranks) else f" of {len(all_ranks)}"
        console.print(Text(f"   ranks: [{rank_list(finding.ranks)}]{every}", style="magenta"))
    for line in _source_block(finding.location):
        console.print(line)
    if finding.user_frame is not None:
        console.print(
            Text(f"   reached from your code at {finding.user_frame.where}: {finding.user_frame.shown_source}")
        )
    elif len(finding.call_sites) > 1:
        console.print(Text(f"   called from {len(finding.call_sites)} sites: {', '.join(finding.call_sites)}"))
    console.print(Text("   why: ", style="bold").append(Text(finding.why, style="")))
    if finding.torch_says:
        console.print(Text(f"   torch says: {finding.torch_says}", style="dim"))
    for change in finding.changes:
        console.print(Text(f"   changed: {change}", style="yellow"))
    figures = finding_figures(finding, report.summary.compile_time_s)
    if figures:
        console.print(Text(f"   figures: {figures}", style="dim"))
    if finding.fix is not None:
        _fix(console, finding.fix)
    console.print()


def _gate(console: Console, gate: GateResult) -> None:
    verdict = (
        "passed" if gate.passed else "FAILED" + (f": {len(gate.failures)} finding(s) fail it" if gate.failures else "")
    )
    console.print(
        Text(f"gate {verdict}", style="bold green" if gate.passed else "bold red").append(
            Text(f"   ({' '.join(gate.criteria)})", style="dim")
        )
    )
    for violation in gate.violations:
        console.print(Text(f"  {violation}", style="bold red"))
    baseline = gate.baseline
    if baseline:
        fixed = baseline.fixed
        console.print(
            Text(
                f"  baseline: {baseline.known} known finding(s), {baseline.new} new, {len(fixed)} fixed"
                + (" (prune them with --update-baseline)" if fixed and not baseline.updated else ""),
                style="dim",
            )
        )
    console.print()


def _guards(console: Console, report: Report) -> None:
    console.print(Text("Guards per compiled frame", style="bold"))
    if not report.guards:
        console.print(Text("  no guard trees in this capture"))
    for frame in report.guards:
        console.print(
            Text(
                f"  {frame.function}  ({frame.display_file or report.display_file(frame.file)}:{frame.line})",
                style="cyan",
            )
        )
        for entry in frame.entries:
            kinds = ", ".join(f"{k} {n}" for k, n in entry.by_kind.items())
            latency = f", torch's cold estimate {entry.latency_us:g} µs" if entry.latency_us is not None else ""
            counted = f" (torch counts {entry.guard_count})" if entry.guard_count is not None else ""
            console.print(Text(f"    entry {entry.compile_id}: {entry.tree_guards} guards{counted}{latency}"))
            console.print(Text(f"      by kind: {kinds}", style="dim"))
            for place, count in list(entry.by_source_line.items())[:5]:
                console.print(Text(f"      {count:>5} from {place}", style="dim"))
            for pin in entry.pins[:4]:
                console.print(Text(f"      pins {pin}"))
            for change in entry.changed:
                console.print(Text(f"      changed from the previous entry: {change}", style="yellow"))
        if frame.overhead:
            o = frame.overhead
            if o.error:
                console.print(Text(f"    per call: not measured ({o.error})", style="dim"))
            else:
                console.print(Text(_overhead_line(o), style="bold"))
    console.print()


def _us(value: float | None, spread: float | None) -> str:
    shown = f"{value or 0.0:.1f} µs"
    return f"{shown} ± {spread / 2:.1f}" if spread is not None else shown


def _overhead_line(o: GuardOverheadFigures) -> str:
    """Per call, median ± half the rounds' spread; guards' share, or that the two timings differ within noise."""
    timed = (
        f"    per call: compiled {_us(o.compiled_us, o.compiled_spread_us)} · guards skipped "
        f"{_us(o.skip_guards_us, o.skip_guards_spread_us)} · eager {o.eager_us or 0.0:.1f} µs"
    )
    if o.within_noise:
        rounds = f"{o.rounds} rounds" if o.rounds else "the rounds"
        return f"{timed} · guards skipped and with guards differ within the noise of {rounds}: no guard cost measured"
    share = max(0.0, o.guard_us) / o.compiled_us if o.compiled_us else 0.0
    return f"{timed} · guards ≈ {share:.0%} of the call"


def _or_dash(count: int | None) -> str:
    return str(count) if count is not None else "-"  # not in the log (the summary line says so)


def _seconds_or_dash(seconds: float | None) -> str:
    return f"{seconds:.2f} s" if seconds is not None else "-"


def _rank_table(console: Console, report: Report) -> None:
    console.print(Text(f"{len(report.rank_table)} ranks (the line above: the worst rank's figures, breaks unique)"))
    head = f"  {'rank':>5}  {'graphs':>6}  {'breaks':>6}  {'recompiles':>10}  {'failures':>8}  {'compile':>9}  "
    console.print(Text(head + f"{'ddp splits':>10}  {'target':<11}  log", style="bold"))
    for row in report.rank_table:
        line = (
            f"  {row.rank:>5}  {_or_dash(row.graphs):>6}  {row.graph_breaks:>6}  "
            f"{row.recompiles:>10}  {row.compile_failures:>8}  "
            f"{_seconds_or_dash(row.compile_time_s):>9}  {row.ddp_splits:>10}  "
            f"{row.target_status:<11}  {row.log}"
        )
        console.print(Text(line, style="yellow" if row.log != "complete" else ""))
    console.print()


UNWRAPPED_WIDTH = 10_000  # rich needs a width even when it does not wrap


def _console(buffer: io.StringIO, options: RenderOptions) -> Console:
    """A console that asks the machine nothing: with every setting given, rich reads no environment (TERM,
    COLUMNS, NO_COLOR, FORCE_COLOR), no terminal size, no Windows console. The CLI fills the options."""
    return Console(
        file=buffer,
        force_terminal=options.color,
        no_color=not options.color,
        color_system="standard" if options.color else None,  # the styles below use the eight standard colours
        width=options.width or UNWRAPPED_WIDTH,
        height=25,  # never used (nothing pages), but unset rich would ask the terminal
        legacy_windows=False,
        highlight=False,
        soft_wrap=options.width is None,  # a file or a pipe (`| less`, a CI log): lines as long as they are
        emoji=False,
    )


def _lead(console: Console, report: Report) -> None:
    """What the user can change at their own lines, first: each such finding's rank, line and change."""
    rewrites = at_your_code(report)
    if not rewrites:
        return
    console.print(Text(AT_YOUR_CODE, style="bold"))
    for rewrite in rewrites:
        console.print(Text(f"  #{rewrite.rank} {rewrite.code} {rewrite.where}: {clean_for_display(rewrite.change)}"))
    console.print()


def render(report: Report, options: RenderOptions = DEFAULT_OPTIONS) -> str:
    buffer = io.StringIO()
    console = _console(buffer, options)
    s = report.summary
    target = report.display_target(options.base_dir)
    console.print(Text(f"torchcompile-doctor {report.tool_version} · {target}", style="bold"))
    console.print(
        Text(
            f"{graphs_phrase(s.graphs)} · {s.graph_breaks} graph breaks ({s.graph_break_records} records) · "
            f"{s.recompiles} recompiles · {s.recompile_limit_hits} recompile-limit hits · "
            f"{s.fallbacks_to_eager} fallbacks to eager · {s.compile_failures} compile failures · "
            f"{compile_phrase(s.compile_time_s)} · backend {report.backend} · torch {torch_label(report.torch_version)}"
        )
    )
    for line in compile_time_lines(report.compile_time):
        console.print(Text(line, style="dim"))
    for line in cudagraph_lines(report.cudagraphs):
        console.print(Text(line, style="dim"))
    console.print()
    all_ranks = tuple(row.rank for row in report.rank_table)
    if len(all_ranks) > 1:
        _rank_table(console, report)
    if report.gate is not None:
        _gate(console, report.gate)
    if options.show_guards:
        _guards(console, report)
    if not report.findings:
        console.print(Text(no_findings(s.graphs, report.compile_time is not None), style="green"))
    _lead(console, report)
    for finding in report.findings:
        _finding(console, finding, report)
    for note in report.display_notes(options.base_dir):
        console.print(Text(f"note: {note}", style="dim"))
    console.print(Text(target_line(report.target_status, report.target_exit_code), style="dim"))
    return buffer.getvalue()
