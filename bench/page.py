"""Benchmark: the HTML page beside the JSON report as the log grows, so growth shows at every change (issue 36).

Run by `make bench` (`.venv/bin/python bench/page.py`). It builds two traces, of --sizes MB (default 50 and 200),
in a temporary folder outside the repository (deleted afterwards), with bench/ingest.py's builder from recorded
traces checked in under tests/data (SEEDS: inductor captures with torch's compile spans, graph breaks and
recompiles; no capture is run), then times, interleaved, median of --repeat runs after one dropped warm-up:
`doctor report BIG --format json -o /dev/null` and `doctor report BIG --format html -o PAGE.html` (which also
writes the Perfetto file beside the page), each run's own peak RSS through GNU time. Then, in one process per
size, the stages (reading, analysis, JSON, HTML rendering). It prints per size the two times, the page's cost
over the report's and the page's size, and the growth from the small trace to the large one against the
growth of the log. Goals (issue 36): the page grows at most 1.25x as fast as the log, and costs at most 2.5x the
JSON report on the large trace, and the JSON report of the small trace at most 0.12 of tlparse's time (timed
beside them there when tlparse is installed, or given with --tlparse, with the plain envelope pass the issue names
as the floor, and what the report costs before it reads a payload) with a peak under 64 MB. --write puts the
figures in bench/RESULTS.md; --seed replaces the seed traces.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import ingest

ROOT = ingest.ROOT
RESULTS = ingest.RESULTS
SECTION_START, SECTION_END = "<!-- page:start -->", "<!-- page:end -->"
SEEDS = (
    "tests/data/samples/gpt2_finetune.capture/trace/dedicated_log_torch_trace_327o7lzb.log",
    "tests/data/try_fixes/draft_model_metrics.capture/trace/dedicated_log_torch_trace_wbsmdwpl.log",
    "tests/data/recompile_judgement/several_causes/trace/dedicated_log_torch_trace_tb_3d79_.log",
    "tests/data/traces/item_recompile.log",
    "tests/data/captures/hf_switch_tiny/trace/dedicated_log_torch_trace_7y0ti91d.log",
    # a function at torch's recompile limit: its analysis was quadratic in the hits until issue 36's ingest pass
    "tests/data/traces/recompile_limit.log",
)
GOAL_GROWTH = 1.25  # the page's time grows at most this much faster than the log
GOAL_REPORT_OVER_TLPARSE = 0.12  # the JSON report of the small trace, against tlparse's time
GOAL_PAGE_OVER_JSON = 2.5  # the page costs at most this many times the JSON report on the large trace


def measure(path: Path, folder: Path, repeat: int, log, tlparse: list[str] | None) -> dict[str, ingest.Tool]:
    page = folder / "page.html"
    doctor = ingest.doctor_cmd() + ["report", str(path)]
    tools = [
        ingest.Tool("json", "doctor report BIG --format json", doctor + ["--format", "json", "-o", os.devnull]),
        ingest.Tool(
            "html", "doctor report BIG --format html -o PAGE.html", doctor + ["--format", "html", "-o", str(page)]
        ),
    ]
    if tlparse is not None:
        out = folder / "tlparse"
        argv = tlparse + [str(path), "--overwrite", "-o", str(out), "--no-browser"]
        tools.append(ingest.Tool("tlparse", "tlparse BIG", argv, before=lambda: shutil.rmtree(out, ignore_errors=True)))
        # the floor issue 36 names for the report against tlparse: every envelope JSON-decoded, nothing else
        tools.append(
            ingest.Tool(
                "plain", "plain Python pass (envelopes only)", [ingest.PYTHON, "-c", ingest.PLAIN_PASS, str(path)]
            )
        )
    ingest.run_interleaved(tools, repeat, log)
    return {tool.key: tool for tool in tools}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs=2, default=(50, 200), metavar="MB", help="two trace sizes (MB)")
    parser.add_argument("--repeat", type=int, default=2, help="measured runs per tool and size (default 2)")
    parser.add_argument("--seed", action="append", type=Path, help="a seed trace (repeatable; default: SEEDS)")
    parser.add_argument("--tlparse", type=Path, help="a tlparse binary: timed beside the report on the small trace")
    parser.add_argument("--write", action="store_true", help=f"update the page section of {RESULTS.name}")
    parser.add_argument("-q", "--quiet", action="store_true", help="no per-run progress on stderr")
    opts = parser.parse_args()

    def log(message: str) -> None:
        if not opts.quiet:
            print(message, file=sys.stderr, flush=True)

    started = time.perf_counter()
    seeds = opts.seed or [ROOT / seed for seed in SEEDS]
    folder = Path(tempfile.mkdtemp(prefix="tcd-page-bench-"))
    rows = []
    tlparse = [str(opts.tlparse)] if opts.tlparse else ingest.tlparse_cmd(False, log)
    try:
        for size in opts.sizes:
            path = folder / f"trace_{size}MB.log"
            big = ingest.build_big_trace(seeds, path, size * 1_000_000)
            log(f"page: a {ingest.fmt_mb(big.size)} trace, {big.copies} copies of {len(seeds)} seed(s)")
            tools = measure(path, folder, opts.repeat, log, tlparse if size == opts.sizes[0] else None)
            stages = ingest.phases(path)
            page_bytes = (folder / "page.html").stat().st_size
            rows.append((big, tools, stages, page_bytes))
            path.unlink()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    table, notes = describe(rows)
    print(table + "\n\n" + notes)
    total_s = time.perf_counter() - started
    log(f"page: {total_s:.0f} s in all")
    if opts.write:
        write_section(seeds, opts, table, notes, total_s)
    failed = any(tool.failures for _, tools, _, _ in rows for tool in tools.values())
    return 1 if failed else 0


def describe(rows) -> tuple[str, str]:
    lines = [
        "| Trace | Records | JSON report (s) | JSON report CPU (s) | HTML page (s) | Page / report | Page (MB) "
        "| HTML stage (s) | Peak RSS, report (MB) | Peak RSS, page (MB) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for big, tools, stages, page_bytes in rows:
        json_s, html_s = tools["json"].wall, tools["html"].wall
        stage = stages.get("render_html", (float("nan"), 0.0))[0]
        lines.append(
            f"| {ingest.fmt_mb(big.size)} | {big.records} | {json_s:.2f} | {tools['json'].cpu:.2f} | {html_s:.2f} "
            f"| {html_s / json_s:.2f} | {page_bytes / 1e6:.2f} | {stage:.2f} | {tools['json'].peak:.0f} "
            f"| {tools['html'].peak:.0f} |"
        )
    (small, small_tools, small_stages, _), (large, large_tools, large_stages, _) = rows
    grown = large.size / small.size
    page_grown = large_tools["html"].wall / small_tools["html"].wall
    json_grown = large_tools["json"].wall / small_tools["json"].wall
    over = large_tools["html"].wall / large_tools["json"].wall
    stage_grown = large_stages.get("render_html", (0.0, 0))[0] / max(small_stages.get("render_html", (1.0, 0))[0], 1e-9)
    notes = []
    if "tlparse" in small_tools:
        ratio = small_tools["json"].wall / small_tools["tlparse"].wall
        cpu_ratio = small_tools["json"].cpu / small_tools["tlparse"].cpu
        notes.append(
            f"- On the {ingest.fmt_mb(small.size)} trace the JSON report takes {ratio:.2f} of tlparse's time "
            f"({small_tools['json'].wall:.2f} s against {small_tools['tlparse'].wall:.2f} s; goal <= "
            f"{GOAL_REPORT_OVER_TLPARSE:g}: {'met' if ratio <= GOAL_REPORT_OVER_TLPARSE else '**not met**'}); "
            f"in CPU time {cpu_ratio:.2f} ({small_tools['json'].cpu:.2f} s against {small_tools['tlparse'].cpu:.2f} s "
            "of user and system time, the figure a loaded machine disturbs least)."
        )
        notes.append(_what_the_goal_leaves(small, small_tools, small_stages, large, large_stages))
    peak = small_tools["json"].peak
    notes.append(
        f"- The JSON report's peak RSS on the {ingest.fmt_mb(small.size)} trace: {peak:.1f} MB (goal < "
        f"{ingest.GOAL_PEAK_MB} MB: {'met' if peak < ingest.GOAL_PEAK_MB else '**not met**'})."
    )
    notes += [
        f"- The log grew {grown:.2f}x; the page's time {page_grown:.2f}x (goal <= {GOAL_GROWTH * grown:.2f}x, "
        f"{GOAL_GROWTH:g} times the log's growth: {'met' if page_grown <= GOAL_GROWTH * grown else '**not met**'}), "
        f"the JSON report's {json_grown:.2f}x, the HTML rendering stage alone {stage_grown:.2f}x.",
        f"- On the {ingest.fmt_mb(large.size)} trace the page costs {over:.2f}x the JSON report (goal <= "
        f"{GOAL_PAGE_OVER_JSON:g}x: {'met' if over <= GOAL_PAGE_OVER_JSON else '**not met**'}).",
        f"- Stages on the {ingest.fmt_mb(large.size)} trace: {ingest.describe_phases(large_stages, large.size)}.",
    ]
    return "\n".join(lines), "\n".join(notes)


def _what_the_goal_leaves(small, tools, small_stages, large, large_stages) -> str:
    """The report's costs that do not depend on reading the log well, beside the goal's time: the imports, the
    analysis's fixed part (its two sizes' times extrapolated to an empty log) and the plain envelope pass."""
    goal = GOAL_REPORT_OVER_TLPARSE * tools["tlparse"].wall
    imports = small_stages.get("import", (float("nan"), 0.0))[0]
    small_analysis = small_stages.get("analyze", (float("nan"), 0.0))[0]
    large_analysis = large_stages.get("analyze", (float("nan"), 0.0))[0]
    per_byte = (large_analysis - small_analysis) / (large.size - small.size)
    fixed_analysis = max(0.0, small_analysis - per_byte * small.size)
    floor = imports + fixed_analysis + tools["plain"].wall
    return (
        f"- What the goal leaves: {GOAL_REPORT_OVER_TLPARSE:g} of tlparse's time is {goal:.2f} s. The imports take "
        f"{imports:.2f} s and the analysis's part that does not grow with the log {fixed_analysis:.2f} s (its "
        f"{small_analysis:.2f} s and {large_analysis:.2f} s at the two sizes, extrapolated to an empty log); a plain "
        f"Python pass that only JSON-decodes the {ingest.fmt_mb(small.size)} trace's envelopes takes "
        f"{tools['plain'].wall:.2f} s. Together {floor:.2f} s, {floor / tools['tlparse'].wall:.2f} of tlparse's time, "
        "before a payload is checked or a record parsed."
    )


def _tlparse_version(binary: Path) -> str:
    try:
        done = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=30, check=False)
    except OSError:
        return "(version unknown)"
    return done.stdout.strip().removeprefix("tlparse ") or "(version unknown)"


def write_section(seeds: list[Path], opts, table: str, notes: str, total_s: float) -> None:
    date = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    seed_names = ", ".join(p.relative_to(ROOT).as_posix() if p.is_relative_to(ROOT) else p.name for p in seeds)
    # the tlparse given is named by its version, not by where it lies on this machine
    given = [
        f"<tlparse {_tlparse_version(opts.tlparse)}>" if opts.tlparse and arg == str(opts.tlparse) else arg
        for arg in sys.argv[1:]
    ]
    argv = " ".join(["bench/page.py", *given])
    section = f"""{SECTION_START}
## The page as the log grows (issue 36)

Produced by `.venv/bin/python {argv}` on {date} ({len(os.sched_getaffinity(0))} usable cores, load average
{os.getloadavg()[0]:.2f} at the end; {total_s:.0f} s in all). Seeds (recorded traces, repeated with new frame
ids by bench/ingest.py's builder): {seed_names}. Times are medians of {opts.repeat} interleaved runs of the
whole command after one dropped warm-up; the HTML run writes the page and its Perfetto file; the HTML stage is
the renderer alone, in one process.

{table}

{notes}
{SECTION_END}"""
    text = RESULTS.read_text(encoding="utf-8")
    start, end = text.find(SECTION_START), text.find(SECTION_END)
    if start != -1 and end != -1:
        text = text[:start] + section + text[end + len(SECTION_END) :]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    RESULTS.write_text(text, encoding="utf-8")
    print(f"page: wrote the page section of {RESULTS.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
