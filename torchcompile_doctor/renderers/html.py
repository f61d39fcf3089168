"""HTML: one self-contained page to send to a colleague (inline CSS and SVG, no script, nothing fetched at view
time), made with jinja2 with autoescaping on for every value. What the page shows is computed into typed
records by renderers/_html_view.py (findings), _html_timeline.py (the compile timeline) and _html_tables.py
(tables, phase bars); the markup is renderers/templates/report.html.j2. Every value printed passes through
_shareable.py (no machine paths, no addresses) unless it is the user's own code, marked verbatim."""

from __future__ import annotations

import datetime
import functools
import urllib.parse
from dataclasses import dataclass

import jinja2
from markupsafe import Markup, escape

from torchcompile_doctor.model.report import Report, rank_list
from torchcompile_doctor.renderers._html_cudagraphs import CudagraphSection, cudagraph_section
from torchcompile_doctor.renderers._html_tables import (
    GraphRow,
    GuardTable,
    PhaseBars,
    compile_facts,
    graph_rows,
    guard_table,
    phase_bars,
    primary_compile_time,
    shown_graph_rows,
)
from torchcompile_doctor.renderers._html_timeline import Timeline, timeline
from torchcompile_doctor.renderers._html_view import (
    FindingView,
    RewriteView,
    Tally,
    finding_views,
    rewrite_views,
    tally,
)
from torchcompile_doctor.renderers._shareable import Shareable
from torchcompile_doctor.renderers._text import (
    AT_YOUR_CODE,
    NO_FINDINGS,
    NOT_IN_THE_LOG,
    finding_figures,
    seconds_or_not,
)
from torchcompile_doctor.renderers.options import DEFAULT_OPTIONS, RenderOptions


@jinja2.pass_context
def _finalize(context: jinja2.runtime.Context, value: object) -> object:
    """Every printed string made shareable; Markup (our escaped prose, the user's code) is already final."""
    if isinstance(value, str) and not isinstance(value, Markup):
        return context["shareable"].text(value)
    return value


@jinja2.pass_context
def _breakable(context: jinja2.runtime.Context, value: str) -> Markup:
    """A long name (`a.<locals>.b`, `pkg/models/x.py:12`, `warmup_sgd_update`) that may wrap after its dots,
    slashes and underscores, so a narrow column or screen wraps it at a joint instead of mid-word or scrolling."""
    text = str(escape(context["shareable"].text(value)))  # a str: Markup.replace would escape the <wbr>
    return Markup(text.replace(".", ".<wbr>").replace("/", "/<wbr>").replace("_", "_<wbr>"))


@functools.cache
def _environment() -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("torchcompile_doctor.renderers", "templates"),
        autoescape=True,  # every value, whatever the template's name
        undefined=jinja2.StrictUndefined,
        finalize=_finalize,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    environment.filters["breakable"] = _breakable
    return environment


@dataclass(frozen=True)
class Verdict:
    """The page's first line: what to do first, and why."""

    text: str
    first: FindingView | None
    first_figures: str


@dataclass(frozen=True)
class Card:
    value: str
    label: str


@dataclass(frozen=True)
class Page:
    report: Report
    target: str
    verdict: Verdict
    tally: tuple[Tally, ...]
    cards: tuple[Card, ...]
    findings: tuple[FindingView, ...]
    at_your_code: tuple[RewriteView, ...]  # the lead: what the user can change at their own lines
    at_your_code_title: str
    timeline: Timeline | None
    graphs: tuple[GraphRow, ...]
    graphs_rest: int  # compiled functions not listed there
    bars: PhaseBars | None
    bars_of: str  # whose compile time the per-frame pictures show, in a multi-rank report
    compile_facts: tuple[str, ...]
    guards: GuardTable | None
    cudagraphs: CudagraphSection | None  # how much ran under CUDA graphs (None: not asked for)
    all_ranks: str
    perfetto_file: str | None
    perfetto_href: str | None  # the file's name as a relative URL
    footer: str


def _cards(report: Report) -> tuple[Card, ...]:
    s = report.summary
    data = report.compile_time
    cards = [
        Card(str(s.graphs) if s.graphs is not None else NOT_IN_THE_LOG, "graphs"),
        Card(f"{s.graph_breaks} ({s.graph_break_records} records)", "graph breaks"),
        Card(str(s.recompiles), "recompiles"),
        Card(str(s.fallbacks_to_eager), "fallbacks to eager"),
        Card(str(s.compile_failures), "compile failures"),
        Card(seconds_or_not(s.compile_time_s), "compile time"),
    ]
    if s.recompile_limit_hits:
        cards.insert(3, Card(str(s.recompile_limit_hits), "recompile-limit hits"))
    if data is not None and data.share_of_run is not None:
        cards.append(Card(f"{data.share_of_run:.0%} of {data.run_s:.1f} s", "of the run's wall time"))
    return tuple(cards)


def _verdict(report: Report, findings: tuple[FindingView, ...]) -> Verdict:
    if not findings:
        return Verdict(NO_FINDINGS, None, "")
    count = len(findings)
    text = f"{count} finding{'s' if count > 1 else ''}. Start with"
    return Verdict(text, findings[0], finding_figures(report.findings[0], report.summary.compile_time_s))


def _footer(report: Report) -> str:
    env = report.environment
    parts = [f"torchcompile-doctor {report.tool_version}", f"torch {report.torch_version or 'unknown'}"]
    if env.python_version:
        parts.append(f"Python {env.python_version}")
    if env.started_at is not None:
        started = datetime.datetime.fromtimestamp(env.started_at, tz=datetime.UTC)
        parts.insert(0, f"run of {started:%Y-%m-%d %H:%M} UTC")
    return " · ".join(parts)


def page(report: Report, options: RenderOptions = DEFAULT_OPTIONS) -> Page:
    shareable = Shareable(report.environment)
    findings = finding_views(report, shareable.text)
    graphs, graphs_rest = shown_graph_rows(graph_rows(report))
    return Page(
        report=report,
        target=shareable.text(report.target),
        verdict=_verdict(report, findings),
        tally=tally(report),
        cards=_cards(report),
        findings=findings,
        at_your_code=rewrite_views(report, shareable.text),
        at_your_code_title=AT_YOUR_CODE,
        timeline=timeline(report),
        graphs=graphs,
        graphs_rest=graphs_rest,
        bars=phase_bars(primary_compile_time(report)),
        bars_of=f"rank {report.rank_compile_times[0][0]}"
        if report.compile_time is None and report.rank_compile_times
        else "",
        compile_facts=compile_facts(report.compile_time),
        guards=guard_table(report),
        cudagraphs=cudagraph_section(report.cudagraphs, shareable.text),
        all_ranks=rank_list(row.rank for row in report.rank_table),
        perfetto_file=options.perfetto_file,
        perfetto_href=urllib.parse.quote(options.perfetto_file) if options.perfetto_file else None,
        footer=_footer(report),
    )


def render(report: Report, options: RenderOptions = DEFAULT_OPTIONS) -> str:
    shareable = Shareable(report.environment)
    template = _environment().get_template("report.html.j2")
    return template.render(page=page(report, options), shareable=shareable)
