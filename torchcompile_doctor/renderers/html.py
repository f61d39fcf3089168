"""HTML: one self-contained page (inline CSS and SVG, no script, nothing fetched at view time), made with
jinja2 with autoescaping on for every value. The pictures are drawn from the report's data
(renderers/_html_view.py computes them); the markup is in renderers/templates/report.html.j2."""

from __future__ import annotations

import functools

import jinja2

from torchcompile_doctor.renderers._html_view import (
    LABEL_WIDTH,
    finding_view,
    graph_map,
    guard_rows,
    phase_bars,
    primary_compile_time,
    timeline,
)
from torchcompile_doctor.renderers.options import DEFAULT_OPTIONS, RenderOptions
from torchcompile_doctor.report import Report, rank_list


@functools.cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("torchcompile_doctor.renderers", "templates"),
        autoescape=True,  # every value, whatever the template's name
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def _summary(report: Report) -> list[tuple[str, str]]:
    s = report.summary
    data = report.compile_time
    cards = [
        ("graphs", str(s.graphs)),
        ("graph breaks", f"{s.graph_breaks} ({s.graph_break_records} records)"),
        ("recompiles", str(s.recompiles)),
        ("fallbacks to eager", str(s.fallbacks_to_eager)),
        ("compile failures", str(s.compile_failures)),
        ("compile time", f"{s.compile_time_s:.2f} s"),
    ]
    if data is not None and data.share_of_run is not None:
        cards.append(("of the run's wall time", f"{data.share_of_run:.0%} of {data.run_s:.1f} s"))
    if data is not None and data.late_s:
        cards.append(("compiling after the first call", f"{data.late_s:.2f} s"))
    return cards


def _cache_facts(report: Report) -> list[str]:
    data = report.compile_time
    if data is None:
        return []
    facts = []
    for name, counts in data.cache_totals().items():
        label = "FX-graph cache" if name == "fx_graph" else "AOT-autograd cache"
        facts.append(f"{label}: {counts.hits} hit(s), {counts.misses} miss(es), {counts.bypasses} bypass(es)")
    if data.cache_saved_s:
        facts.append(f"the cache hits saved {data.cache_saved_s:.2f} s of compiling (a fresh machine pays it)")
    facts += [f"bypassed: {reason}" for reason in data.miss_reasons]
    if data.last_compile_end_s is not None:
        facts.append(f"the last compile ended {data.last_compile_end_s:.2f} s after the run started")
    return facts


def page_context(report: Report) -> dict:
    ranks = [row.as_dict() for row in report.rank_table]
    return {
        "report": report,
        "cards": _summary(report),
        "findings": [finding_view(f) for f in report.findings],
        "divergence": [finding_view(f) for f in report.findings if f.kind == "rank_divergence"],
        "bars": phase_bars(primary_compile_time(report)),
        "bars_of": f"rank {report.rank_compile_times[0][0]}"
        if report.compile_time is None and report.rank_compile_times
        else "",
        "timeline": timeline(report),
        "graphs": graph_map(report),
        "guards": guard_rows(report),
        "cache": _cache_facts(report),
        "ranks": ranks,
        "rank_max_compile": max((r["compile_time_s"] for r in ranks), default=0.0) or 1.0,
        "all_ranks": rank_list(r["rank"] for r in ranks) if ranks else "",
        "label_width": LABEL_WIDTH,
        "notes": list(report.notes),
    }


def render(report: Report, options: RenderOptions = DEFAULT_OPTIONS) -> str:
    return _environment().get_template("report.html.j2").render(page_context(report))
