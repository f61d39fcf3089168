"""The page of a long job grows with what it shows, not with the log (issue 36): the recorded capture of nine
compiles made into a job of hundreds or thousands (its compiles repeated later on the run's clock, with new
compile ids, torch's spans with them) draws its timeline as bands, lists its compiles with their totals first and
at most COMPILE_ROWS of them, and lists a frame's compile ids up to IDS_SHOWN; a compile of many spans is nested in
one pass. And the page as printed or on a phone, read in its HTML: every table stacks on a narrow screen (each
cell named by its column), rule codes and compile ids never wrap, folds print open. How a browser lays it out:
test_html_browser.py."""

from __future__ import annotations

import dataclasses
import re

import pytest
from support.html_pages import capture_report, named_reports

from torchcompile_doctor.model.compile_time import (
    CompileRecord,
    CompileTime,
    FrameCache,
    FrameCompileTime,
    TraceSpan,
)
from torchcompile_doctor.model.report import Report
from torchcompile_doctor.renderers import render
from torchcompile_doctor.renderers._html_tables import GRAPH_ROWS, IDS_SHOWN
from torchcompile_doctor.renderers._html_timeline import COMPILE_ROWS, TIMELINE_ROWS, timeline


def _later(record: CompileRecord, copy: int, shift_s: float) -> CompileRecord:
    """The compile as it would run again `copy` times later in the job: a new frame id, its spans with it."""
    frame, _, attempt = record.compile_id.partition("/")
    return dataclasses.replace(
        record,
        compile_id=f"{int(frame) + 1000 * copy}/{attempt}",
        start_s=None if record.start_s is None else record.start_s + shift_s,
        spans=tuple(dataclasses.replace(s, start_s=s.start_s + shift_s) for s in record.spans),
    )


def long_job(report: Report, copies: int) -> Report:
    """The report's compiles repeated `copies` times one after another on the run's clock."""
    data = report.compile_time
    assert data is not None
    ends = [c.start_s + c.seconds for frame in data.frames for c in frame.compiles if c.start_s is not None]
    period = max(ends) * 1.05  # the next copy starts a moment after the last compile ended
    frames = tuple(
        dataclasses.replace(
            frame,
            compiles=tuple(_later(c, k, k * period) for k in range(copies) for c in frame.compiles),
            seconds=frame.seconds * copies,
        )
        for frame in data.frames
    )
    longer = CompileTime.of(frames, kernel_compiler=data.kernel_compiler)
    return dataclasses.replace(report, compile_time=longer)


def _rects(page: str) -> int:
    return page.count("<rect ")


def test_a_long_jobs_page_stays_the_size_of_what_it_shows():
    report = capture_report("int_arg_recompile_limit")  # 9 compiles of one function, torch's spans nested
    short, long = (render(long_job(report, copies), "html") for copies in (20, 400))  # 180 and 3600 compiles
    assert long_job(report, 400).compile_time.frames[0].compiles[-1].compile_id == "399000/8"
    assert len(long) < 1.5 * len(short)  # 20x the compiles, not 20x the page: bands at most one per pixel or two
    assert _rects(long) < 2 * _rects(short)
    rows = re.search(r"<summary>Every compile: when, how long, what it found \((\d+)\)</summary>", long)
    assert rows and int(rows.group(1)) == 3600
    table = long.split("Every compile: when, how long")[1].split("</table>")[0]
    assert table.count("<tr>") == COMPILE_ROWS + 1  # its header and the listed compiles
    assert f"{3600 - COMPILE_ROWS} more compiles (" in long
    assert re.search(r"3600 compiles, [\d.]+ s in all; 400 gave no graph; 8 with a finding\.", long)
    assert f"0/{IDS_SHOWN - 1}" not in long and f", … {3600 - IDS_SHOWN} more)" in long  # 3600 ids, 12 listed


def test_compiles_too_close_to_tell_apart_are_one_band_that_says_how_many():
    short = capture_report("int_arg_recompile_limit")
    report = long_job(short, 400)
    drawn, alone = timeline(report), timeline(short)
    assert drawn is not None and alone is not None
    (row,) = drawn.lanes[0].rows
    bands = [box for box in row.boxes if box.title.endswith("(each one: the Perfetto file)")]
    assert bands and all(
        re.match(r"\d+ (spans|compiles torch gave up on \(no graph\)) from \+", b.title) for b in bands
    )
    spans = sum(len(c.spans) for frame in report.compile_time.frames for c in frame.compiles)
    assert len(row.boxes) < 0.1 * spans
    assert {(box.y, box.phase) for box in row.boxes} <= {(box.y, box.phase) for box in alone.lanes[0].rows[0].boxes}


def test_the_compiles_listed_are_those_with_a_finding_then_the_slowest_in_run_order():
    report = long_job(capture_report("int_arg_recompile_limit"), 400)
    drawn = timeline(report)
    assert drawn is not None
    table = drawn.compiles
    assert (table.count, table.rest, len(table.rows)) == (3600, 3600 - COMPILE_ROWS, COMPILE_ROWS)
    assert sum(bool(line.findings) for line in table.rows) == table.with_findings == 8  # the first copy's
    listed = {line.compile_id for line in table.rows}
    unlisted = [c.seconds for frame in report.compile_time.frames for c in frame.compiles if c.compile_id not in listed]
    assert max(unlisted) <= min(line.seconds for line in table.rows if not line.findings)
    assert table.rest_s == pytest.approx(sum(unlisted))
    starts = [line.start_s for line in table.rows]
    assert starts == sorted(starts)  # in run order


def many_functions(report: Report, count: int) -> Report:
    """The report's compiled function as `count` functions (another name and line each, later on the clock)."""
    data = report.compile_time
    assert data is not None
    (frame,) = data.frames
    frames = tuple(
        dataclasses.replace(
            frame,
            function=f"{frame.function}_{k}" if k else frame.function,
            line=frame.line + 10 * k,
            seconds=frame.seconds * (1 + k % 7),
            compiles=tuple(_later(c, k, 0.01 * k) for c in frame.compiles),
        )
        for k in range(count)
    )
    return dataclasses.replace(report, compile_time=CompileTime.of(frames, kernel_compiler=data.kernel_compiler))


def test_a_job_of_many_functions_draws_those_with_a_finding_then_the_costliest():
    report = many_functions(capture_report("int_arg_recompile_limit"), 150)
    drawn = timeline(report)
    assert drawn is not None
    (lane,) = drawn.lanes
    assert len(lane.rows) == TIMELINE_ROWS and lane.rest == 150 - TIMELINE_ROWS
    assert lane.rows[0].function == "warmup_sgd_update"  # its compiles carry the findings' markers
    assert min(row.seconds for row in lane.rows[1:]) >= max(
        f.seconds for f in report.compile_time.frames if f.function not in {row.function for row in lane.rows}
    )
    assert lane.rest_s == pytest.approx(report.compile_time.total_s - sum(row.seconds for row in lane.rows))
    assert drawn.compiles.count == 150 * 9  # the table still counts every compile
    page = render(report, "html")
    assert f"{150 - TIMELINE_ROWS} more compiled functions (" in page
    graphs = page.split('<section id="graphs">')[1].split("</section>")[0]
    assert graphs.count('<td class="code" data-label="compiled function">') == GRAPH_ROWS
    assert f"{150 - GRAPH_ROWS} more compiled functions (listed: " in graphs


def _spans(*spans: tuple[str, float, float, int]) -> tuple[TraceSpan, ...]:
    return tuple(TraceSpan(name, start, seconds, depth) for name, start, seconds, depth in spans)


def test_a_compiles_spans_are_coloured_by_the_spans_around_them():
    spans = _spans(
        ("dynamo", 0.0, 1.0, 0),
        ("bytecode_tracing", 0.0, 0.2, 1),
        ("backend_compile", 0.2, 0.7, 1),
        ("inductor_compile", 0.3, 0.5, 2),
        ("compile_file", 0.4, 0.2, 3),
        ("some_step", 0.62, 0.1, 3),  # inside inductor_compile, after the C++ compile ended
        ("after_backend", 0.9, 0.1, 1),
    )
    record = CompileRecord("0/0", start_s=0.0, seconds=1.0, phases={"dynamo": 1.0}, spans=spans)
    frame = FrameCompileTime(
        function="f", file="f.py", line=1, seconds=1.0, phases={"dynamo": 1.0}, cache=FrameCache(), compiles=(record,)
    )
    report = dataclasses.replace(
        capture_report("int_arg_recompile_limit"), compile_time=CompileTime.of((frame,), run_s=1.0)
    )
    drawn = timeline(report)
    assert drawn is not None
    phases = {box.title.split(":")[0].split(" (")[0]: box.phase for box in drawn.lanes[0].rows[0].boxes}
    assert phases == {
        "dynamo": "dynamo",
        "bytecode_tracing": "dynamo",
        "backend_compile": "aot_autograd",
        "inductor_compile": "inductor",
        "compile_file": "cpp_compile",
        "some_step": "inductor",
        "after_backend": "dynamo",
    }


def test_every_table_stacks_on_a_phone_with_each_cell_named_by_its_column():
    for name, report in named_reports().items():
        page = render(report, "html")
        tables = re.findall(r"<table[^>]*>.*?</table>", page, re.S)
        for table in tables:
            assert table.startswith('<table class="stack">'), name
            headers = re.findall(r"<th>(.*?)</th>", table)
            labels = re.findall(r'<td[^>]* data-label="([^"]+)"', table)
            assert len(labels) == table.count("<td"), name  # every cell named
            assert set(labels) <= {re.sub(r" \(µs, torch's estimate\)", " (µs)", h) for h in headers}, name
        assert "@media screen and (max-width: 640px)" in page and "table.stack td::before" in page


def test_the_break_is_named_in_the_second_column_of_where_the_graphs_are():
    page = render(capture_report("helper_two_callsites"), "html")
    graphs = page.split('<section id="graphs">')[1].split("</section>")[0]
    assert re.findall(r"<th>(.*?)</th>", graphs)[:2] == ["compiled function", "split at"]
    assert re.search(
        r'<td data-label="split at"><a href="#finding-\d+">line \d+</a> <span class="code rule">TCD\d+', graphs
    )


def test_printed_folds_open_codes_stay_whole_and_the_axis_is_text():
    report = named_reports()["stress"]
    page = render(report, "html")
    printed = page.split("@media print {")[1].split("\n}\n")[0]
    assert "details::details-content { content-visibility: visible;" in printed
    assert "overflow-wrap: anywhere" not in printed.replace("td.code { overflow-wrap: anywhere; }", "")
    assert all(f'<span class="code rule">{f.code}</span>' in page for f in report.findings)
    assert ".rule, td.id, .sev { white-space: nowrap;" in page
    assert 'class="tick"' not in page and '<div class="axis"' in page
    assert re.search(r'<span class="first" style="left: 0\.0%">0 s</span>', page)
