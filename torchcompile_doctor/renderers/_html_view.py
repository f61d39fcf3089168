"""The HTML page's view model: plain dicts and numbers computed from a Report (the pictures' geometry
included), so the template only lays them out. Pure: nothing here reads files or the clock."""

from __future__ import annotations

import re

from markupsafe import Markup, escape

from torchcompile_doctor.compile_time import PHASES, CompileTime
from torchcompile_doctor.renderers._text import clean_for_display
from torchcompile_doctor.report import Finding, Kind, Location, Report

PHASE_COLORS = {"dynamo": "#4e79a7", "aot_autograd": "#f28e2b", "inductor": "#59a14f", "cpp_compile": "#b07aa1"}
MARKERS = {"break": "#e15759", "recompile": "#edc948", "fallback": "#9c1d1d", "failure": "#000000"}
CHART_WIDTH = 760  # px of the drawing area of the bars and the timeline
LABEL_WIDTH = 220


_CODE_SPAN = re.compile(r"`([^`]+)`")


def prose(text: str) -> Markup:
    """Our prose with its `code` spans set as <code>; everything else escaped (the span's text too)."""
    text = clean_for_display(text)
    parts, last = [], 0
    for span in _CODE_SPAN.finditer(text):
        parts += [escape(text[last : span.start()]), Markup("<code>%s</code>") % span.group(1)]
        last = span.end()
    parts.append(escape(text[last:]))
    return Markup("").join(parts)


def _marker_kind(finding: Finding) -> str | None:
    if finding.kind in (Kind.FRAME_SKIPPED, Kind.RECOMPILE_LIMIT):
        return "fallback"
    if finding.kind == Kind.GRAPH_BREAK:
        return "break"
    if finding.kind == Kind.RECOMPILE:
        return "recompile"
    if finding.kind == Kind.COMPILE_FAILURE:
        return "failure"
    return None


def finding_view(finding: Finding) -> dict:
    location = finding.location
    verified = finding.fix.verified if finding.fix else None
    return {
        "rank": finding.rank,
        "code": finding.code,
        "severity": finding.severity,
        "title": prose(finding.title),
        "where": location.where if location else None,
        "function": location.function if location else None,
        "context": _context(location),
        "source": clean_for_display(location.source or "") if location else "",
        "user_frame": finding.user_frame.where if finding.user_frame else None,
        "why": prose(finding.why),
        "torch_says": clean_for_display(finding.torch_says) if finding.torch_says else None,
        "changes": [clean_for_display(c) for c in finding.changes],
        "fix": prose(finding.fix.summary) if finding.fix else None,
        "before": clean_for_display(finding.fix.before) if finding.fix and finding.fix.before else None,
        "after": clean_for_display(finding.fix.after) if finding.fix and finding.fix.after else None,
        "verified": _verified_line(verified) if verified is not None else None,
        "verified_effect": verified.effect if verified is not None else None,
        "ranks": list(finding.ranks),
        "docs_url": finding.docs_url if finding.docs_url and finding.docs_url.startswith("https://") else None,
        "count": finding.count,
    }


def _context(location: Location | None) -> list[dict]:
    """The source lines around the finding's line, that line marked."""
    if location is None:
        return []
    return [
        {"number": number, "text": clean_for_display(text), "marked": number == location.line}
        for number, text in location.context
    ]


def _verified_line(verified) -> str:
    from torchcompile_doctor.rules.experiments import summary_line

    return clean_for_display(summary_line(verified))


def phase_bars(data: CompileTime | None) -> dict:
    """Compile time per frame as stacked horizontal bars by phase, on one scale."""
    if data is None or not data.frames:
        return {"rows": [], "legend": [], "width": CHART_WIDTH, "height": 0}
    longest = max(frame.seconds for frame in data.frames) or 1.0
    rows = []
    for number, frame in enumerate(data.frames):
        x, segments = 0.0, []
        for phase in PHASES:
            seconds = frame.phases[phase]
            width = seconds / longest * CHART_WIDTH
            if width > 0:
                segments.append(
                    {
                        "x": round(x, 1),
                        "width": round(width, 1),
                        "color": PHASE_COLORS[phase],
                        "title": f"{data.labels[phase]}: {seconds:.2f} s",
                    }
                )
            x += width
        rows.append(
            {
                "y": number * 26,
                "label": f"{frame.function} ({frame.where})",
                "segments": segments,
                "seconds": f"{frame.seconds:.2f} s",
                "end": round(x, 1),
                "compiles": len(frame.compiles),
            }
        )
    legend = [{"label": data.labels[p], "color": PHASE_COLORS[p], "seconds": f"{data.phases[p]:.2f}"} for p in PHASES]
    return {"rows": rows, "legend": legend, "width": CHART_WIDTH, "height": len(rows) * 26}


def _ticks(span: float) -> list[dict]:
    step = next((s for s in (0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600) if span / s <= 8), 1200)
    ticks, value = [], 0.0
    while value <= span + 1e-9:
        ticks.append({"x": round(value / span * CHART_WIDTH, 1), "label": f"{value:g} s"})
        value += step
    return ticks


def _lanes_data(report: Report) -> list[tuple[str, int | None, CompileTime]]:
    """(label, rank, compile time) per lane: one per rank of a multi-rank report, else the one process."""
    if report.rank_compile_times:
        return [(f"rank {rank}", rank, data) for rank, data in report.rank_compile_times]
    return [("process", None, report.compile_time)] if report.compile_time is not None else []


def _compile_ids(finding: Finding, rank: int | None) -> list[str]:
    """The compile ids of a finding on one rank (its per-rank evidence), or on the one process."""
    per_rank = finding.evidence.get("per_rank") if rank is not None else None
    if isinstance(per_rank, dict) and isinstance(per_rank.get(str(rank)), dict):
        ids = per_rank[str(rank)].get("compile_ids") or []
    elif rank is None or rank in finding.ranks:
        ids = finding.evidence.get("compile_ids") or []
    else:
        ids = []
    return [i for i in ids if isinstance(i, str)]


def _lane(report: Report, label: str, rank: int | None, data: CompileTime, scale: float) -> dict:
    compiles = [(f, c, c.start_s) for f in data.frames for c in f.compiles if c.start_s is not None]
    at = {c.compile_id: start for _, c, start in compiles}
    bars = [
        {
            "x": round(start * scale, 1),
            "width": max(round(c.seconds * scale, 1), 1.5),
            "title": f"{f.function} compile {c.compile_id}: {c.seconds:.2f} s at +{start:.2f} s",
            "failed": c.failed,
        }
        for f, c, start in compiles
    ]
    marks = []
    for finding in report.findings:
        kind = _marker_kind(finding)
        for compile_id in _compile_ids(finding, rank) if kind else []:
            if compile_id in at:
                marks.append(
                    {
                        "x": round(at[compile_id] * scale, 1),
                        "color": MARKERS[kind or "break"],
                        "title": f"#{finding.rank} {finding.code} {kind} ({compile_id})",
                        "below": kind in ("fallback", "failure"),  # apart from a recompile of the same compile
                    }
                )
    run_end = round(data.run_s * scale, 1) if data.run_s else None
    return {"label": label, "bars": bars, "marks": marks, "run_end": run_end}


def timeline(report: Report) -> dict:
    """Each compile on the wall-clock axis (seconds after the run started), one lane per process or rank,
    and the findings' breaks, recompiles, fallbacks and failures marked at the compile they happened in."""
    lanes = _lanes_data(report)
    ends = [
        (c.start_s or 0.0) + c.seconds
        for _, _, data in lanes
        for f in data.frames
        for c in f.compiles
        if c.start_s is not None
    ] + [data.run_s or 0.0 for _, _, data in lanes]
    if not lanes or not any(ends):
        return {"lanes": [], "ticks": [], "width": CHART_WIDTH}
    span = max(ends)
    scale = CHART_WIDTH / span
    return {
        "lanes": [_lane(report, label, rank, data, scale) for label, rank, data in lanes],
        "ticks": _ticks(span),
        "width": CHART_WIDTH,
    }


def primary_compile_time(report: Report) -> CompileTime | None:
    """The compile time the per-frame pictures show: the process's, or the first rank's."""
    if report.compile_time is not None:
        return report.compile_time
    return report.rank_compile_times[0][1] if report.rank_compile_times else None


_RESUME = re.compile(r"\(after line (\d+)\)$|^torch_dynamo_resume_in_\w+?_at_(\d+)$")  # how the index names one


def _span(function: str, line: int, splits: list[dict]) -> str:
    """The code a frame's graphs hold: a resume function's from the break it resumes after, the function's own
    from its first line up to its first break."""
    resume = _RESUME.search(function)
    if resume:
        return f"after the break at line {resume.group(1) or resume.group(2)}"
    return f"lines {line}–{min(s['line'] for s in splits)}" if splits else f"from line {line}, whole"


def _split_lines(finding: Finding, frame, name: str) -> list[int]:
    """The lines of `frame` where the break splits it: the break's own line, or for a break inside code the
    frame calls (a helper, a library), the frame's lines that called it."""
    location = finding.location
    if location is None:
        return []
    if location.file == frame.file and location.function.split(".")[-1] == name:
        return [location.line]
    lines = []
    for site in finding.call_sites:
        file, _, line = site.rpartition(":")
        if line.isdecimal() and file and frame.where.startswith(file + ":"):
            lines.append(int(line))
    return sorted(set(lines))


def graph_map(report: Report) -> list[dict]:
    """Where the graphs are: each compiled user function, its graphs (compiles), the code they hold and the
    lines where it split (graph-break findings inside it); resume functions listed after the function."""
    data = primary_compile_time(report)
    if data is None:
        return []
    breaks = [f for f in report.findings if Kind(f.kind).is_break and f.location is not None]
    rows = []
    for frame in sorted(data.frames, key=lambda f: (f.file, f.line, bool(_RESUME.search(f.function)))):
        name = frame.function.split(" (after line")[0].split(".")[-1]
        resume = _RESUME.search(frame.function)
        after = int(resume.group(1) or resume.group(2)) if resume else 0  # a resume function holds what follows
        splits = [
            {"line": line, "code": f.code, "rank": f.rank}
            for f in breaks
            for line in _split_lines(f, frame, name)
            if line > after
        ]
        rows.append(
            {
                "function": frame.function,
                "where": frame.where,
                "graphs": len(frame.compiles),
                "compile_ids": [c.compile_id for c in frame.compiles],
                "splits": splits,
                "span": _span(frame.function, frame.line, splits),
                "resume": resume is not None,
            }
        )
    return rows


def guard_rows(report: Report) -> list[dict]:
    """Guard counts and cost per compiled frame: torch's counts per cache entry and the measured overhead."""
    rows = []
    for frame in report.guards:
        counts = [e.guard_count if e.guard_count is not None else e.tree_guards for e in frame.entries]
        latency = [e.latency_us for e in frame.entries if e.latency_us is not None]
        overhead = frame.overhead or {}
        rows.append(
            {
                "function": frame.function,
                "where": f"{frame.display_file or frame.file}:{frame.line}",
                "entries": len(frame.entries),
                "guards": max(counts) if counts else 0,
                "latency_us": f"{max(latency):.0f}" if latency else "-",
                "compiled_us": overhead.get("compiled_us"),
                "skip_guards_us": overhead.get("skip_guards_us"),
            }
        )
    return rows
