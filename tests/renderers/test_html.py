"""The HTML page, tested like a page: a strict HTML5 parser finds no error, nothing in it is fetched from a
network address (no script, no external stylesheet, image or font), every value is escaped, it says every fact
the terminal report says about each finding, folds and links its findings, draws a timeline whose markers never
cover each other, shows no machine path or address, and comes with a Perfetto file when written with -o.
How it looks in a browser: tests/renderers/test_html_browser.py."""

from __future__ import annotations

import dataclasses
import json
import re
from html.parser import HTMLParser

import pytest
from support.captures import CAPTURES
from support.hostile import HOSTILE_TITLE
from support.html_pages import (
    ADDRESS,
    ELSEWHERE_PATH,
    MACHINE_PATH,
    capture_report,
    multirank_report,
    named_reports,
    stress_report,
)
from typer.testing import CliRunner

from torchcompile_doctor.cli import app
from torchcompile_doctor.model.report import Kind, RunEnvironment
from torchcompile_doctor.renderers import RenderOptions, render
from torchcompile_doctor.renderers._html_timeline import LANE_HEIGHT, MARK_GAP, timeline
from torchcompile_doctor.renderers._perfetto import perfetto_trace
from torchcompile_doctor.renderers._shareable import Shareable

URL_ATTRIBUTES = {"src", "href", "xlink:href", "action", "formaction", "poster", "srcset", "data", "background"}
FETCHING_TAGS = {"script", "link", "img", "iframe", "object", "embed", "video", "audio", "source", "base"}
ABSOLUTE_PATH = re.compile(r"(?<![\w/:.~<>-])/(?:[\w.+-]+/)+[\w.+-]*")  # /a/b or /a/b/c.py, not a URL's path
MEMORY_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{4,}\b")
REPORTS = named_reports()


class _Page(HTMLParser):
    """The parts of a page the tests read: tags, link targets, ids, styles, the text a reader sees, and the
    `<details>` of each finding."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.urls: list[tuple[str, str, str]] = []  # (tag, attribute, value)
        self.ids: set[str] = set()
        self.styles: list[str] = []
        self.text: list[str] = []
        self.details: dict[str, bool] = {}  # finding id -> open
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self._in_style = tag == "style"
        attributes = dict(attrs)
        for name, value in attrs:
            if name in URL_ATTRIBUTES and value is not None:
                self.urls.append((tag, name, value))
            if name == "style" and value:
                self.styles.append(value)
        if attributes.get("id"):
            self.ids.add(attributes["id"])
        if tag == "details" and (attributes.get("id") or "").startswith("finding-"):
            self.details[attributes["id"]] = "open" in attributes

    def handle_data(self, data):
        if self._in_style:
            self.styles.append(data)
        else:
            self.text.append(data)

    def handle_endtag(self, tag):
        self._in_style = False

    @property
    def visible_text(self) -> str:
        return re.sub(r"\s+", " ", "".join(self.text))


def _parse(page: str) -> _Page:
    parsed = _Page()
    parsed.feed(page)
    return parsed


def _strict_parse(page: str) -> None:
    """html5lib in strict mode raises on the first parse error (a test dependency: pyproject [test])."""
    html5lib = pytest.importorskip("html5lib", reason="html5lib is not installed (pip install -e '.[test]')")
    html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(page)


def _html(report, **options) -> str:
    return render(report, "html", RenderOptions(**options))


@pytest.mark.parametrize("name", sorted(REPORTS))
def test_the_page_is_valid_html5(name):
    page = _html(REPORTS[name], perfetto_file="page.perfetto.json")
    _strict_parse(page)
    assert not re.search(r"&lt;/?(wbr|code|a|span)\b", page)  # our own markup never escaped into text


@pytest.mark.parametrize("name", sorted(REPORTS))
def test_nothing_is_fetched_and_every_in_page_link_has_its_target(name):
    page = _html(REPORTS[name], perfetto_file="page.perfetto.json")
    found = _parse(page)
    assert not FETCHING_TAGS & set(found.tags)
    for tag, attribute, url in found.urls:
        assert tag == "a" and attribute == "href", (tag, attribute, url)  # a link the reader follows, not a fetch
        if url.startswith("#"):
            assert url[1:] in found.ids, f"{url} points nowhere"
        else:
            assert url.startswith("https://") or url == "page.perfetto.json", url
    for css in found.styles:
        assert "url(" not in css and "@import" not in css
    assert "<svg" in page or not REPORTS[name].compile_time  # the pictures are inline


def test_every_value_is_escaped():
    report = capture_report("repeated_blocks")
    first = report.findings[0]
    hostile = dataclasses.replace(first, title=HOSTILE_TITLE, why="`<img src=x onerror=alert(1)>` and <b>bold</b>")
    page = _html(dataclasses.replace(report, target="<script>t()</script>", findings=(hostile,)))
    _strict_parse(page)
    found = _parse(page)
    assert "script" not in found.tags and "img" not in found.tags
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "&lt;b&gt;bold&lt;/b&gt;" in page and "&lt;script&gt;t()&lt;/script&gt;" in page


# --- every fact the terminal report has ------------------------------------------------------------------


def _terminal_facts(report) -> list[str]:
    """What the terminal says of each finding, line by line, that the page must say too: the figures, the user's
    line a library break was reached from and its text, the GB id, what changed, the measured effect of a fix."""
    text = render(report, "terminal", RenderOptions(width=None))
    facts = []
    for line in text.splitlines():
        line = line.strip()
        for prefix in ("figures: ", "changed: ", "verified: "):
            if line.startswith(prefix):
                facts.append(line[len(prefix) :])
        reached = re.match(r"reached from your code at (\S+): (.*)", line)
        if reached:
            facts += [reached.group(1), reached.group(2).strip()]
        facts += re.findall(r"\((GB\d{4})", line)
    return [fact for fact in facts if fact]


@pytest.mark.parametrize("name", sorted(REPORTS))
def test_the_page_says_every_fact_the_terminal_says_about_each_finding(name):
    report = REPORTS[name]
    text = _parse(_html(report)).visible_text
    shareable = Shareable(report.environment)
    facts = _terminal_facts(report)
    assert facts or not report.findings
    for fact in facts:
        assert re.sub(r"\s+", " ", shareable.text(fact)) in text, fact


def test_a_fix_shows_before_and_after_labelled_and_what_the_re_run_measured():
    report = stress_report()
    page = _html(report)
    fixed = report.findings[1]
    text = _parse(page).visible_text
    assert "<figcaption>before</figcaption><pre>    out = layer_0(x_0)" in page
    assert "<figcaption>after</figcaption><pre>    out = torch.stack(" in page
    assert "fixed: graph breaks 1 → 1, recompiles 8 → 0, graphs 9 → 1" in text
    assert fixed.fix.verified.change in text
    assert f'<a href="{fixed.docs_url}">' in page  # the docs link can be clicked


def test_the_compile_time_pictures_come_from_the_report():
    report = capture_report("repeated_blocks")
    page = _html(report)
    frame = report.compile_time.frames[0]
    assert f"C++ compile: {frame.phases['cpp_compile']:.2f} s" in page  # a bar segment's tooltip
    assert "Encoder.forward" in _parse(page).visible_text.split("Compile timeline")[1]  # its row on the timeline
    assert "for block in model.blocks: block.compile()" in page
    with_a_break = _html(capture_report("helper_two_callsites"))
    assert '<div class="line marked"><span class="ln">10</span><code>    TIMINGS.setdefault(' in with_a_break


# --- folding, linking, saying things once ----------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(REPORTS))
def test_each_finding_folds_open_when_it_matters(name):
    report = REPORTS[name]
    found = _parse(_html(report))
    assert set(found.details) == {f"finding-{f.rank}" for f in report.findings}
    for finding in report.findings:
        assert found.details[f"finding-{finding.rank}"] == (finding.severity in ("critical", "high", "medium"))


def test_the_verdict_and_the_tally_link_to_the_findings():
    report = stress_report()
    page = _html(report)
    verdict = re.search(r'<p class="verdict">(.*?)</p>', page, re.S).group(1)
    assert "4 findings. Start with" in verdict and 'href="#finding-1"' in verdict and "(limit 8)" not in verdict
    assert "limit 8" in verdict  # the figures that placed it first
    tally = re.findall(r'<a class="chip (\w+)" href="#finding-(\d+)">(\d+) \1</a>', page)
    assert tally == [("critical", "1", "1"), ("high", "2", "1"), ("low", "3", "1"), ("info", "4", "1")]
    for section in ("summary", "findings", "timeline", "graphs", "guards", "notes"):
        assert f'<li><a href="#{section}">' in page  # the table of contents


def test_an_explanation_already_given_is_a_link_to_it():
    report = stress_report()
    page = _html(report)
    assert page.count(report.findings[0].why.split("`")[0]) == 1
    assert 'Why:</span> as for <a href="#finding-1">#1</a>' in page


def test_a_finding_about_a_whole_frame_shows_no_unrelated_source_lines():
    report = capture_report("repeated_blocks")
    page = _html(report)
    for finding in report.findings:
        body = page.split(f'id="finding-{finding.rank}"')[1].split("</details>")[0]
        about_a_frame = finding.kind in (Kind.PERF_HINT, Kind.COMPILE_TIME, Kind.GUARD_COST)
        assert ('class="source"' in body) != about_a_frame, finding.code


# --- nothing of the machine ------------------------------------------------------------------------------


def _machine_leaks(page: str) -> list[str]:
    text = _parse(page).visible_text + " ".join(v for _, _, v in _parse(page).urls)
    return ABSOLUTE_PATH.findall(text) + MEMORY_ADDRESS.findall(text)


@pytest.mark.parametrize("name", sorted(REPORTS))
def test_no_absolute_path_or_address_on_the_page(name):
    assert _machine_leaks(_html(REPORTS[name])) == []


def test_paths_are_relative_to_the_program_or_site_packages_and_addresses_are_gone():
    page = _html(stress_report())
    text = _parse(page).visible_text
    assert "torch/_dynamo/variables/functions.py:1234" in text  # was under site-packages
    assert "…/model.pt" in text and "0x…" in text and ADDRESS not in page and ELSEWHERE_PATH not in page
    assert "torchcompile-doctor: int_arg_recompile_limit.py" in text  # the target, relative to its folder
    assert MACHINE_PATH not in page


def test_shareable_text_leaves_urls_code_and_fractions_alone():
    shareable = Shareable(RunEnvironment(program_dir="/home/u/proj", library_roots=("/usr/lib/python3.11",)))
    for kept in ("https://pytorch.org/docs/a/b.html", "x / y", "and/or", "a/b/c.py", "shape[0]/2", "0x10 bytes"):
        assert shareable.text(kept) == kept
    assert shareable.text("at /home/u/proj/pkg/m.py:3") == "at pkg/m.py:3"
    assert shareable.text("(/usr/lib/python3.11/logging/__init__.py:1488)") == "(logging/__init__.py:1488)"
    assert shareable.text("'/opt/x/site-packages/torch/nn/f.py'") == "'torch/nn/f.py'"
    assert shareable.text("saved to /tmp/run/out.json") == "saved to …/out.json"


def test_the_footer_says_when_and_with_what_the_run_was_made():
    report = capture_report("int_arg_recompile_limit")
    footer = re.search(r"<footer>(.*?)</footer>", _html(report)).group(1)
    assert re.match(r"run of 20\d\d-\d\d-\d\d \d\d:\d\d UTC · torchcompile-doctor \S+ · torch 2\.\d+", footer)
    assert f"Python {report.environment.python_version}" in footer and report.environment.python_version


# --- columns, ranges and zeros that would mislead --------------------------------------------------------


def test_columns_with_no_value_in_any_row_are_left_out():
    report = capture_report("repeated_blocks")
    assert all(frame.overhead is None for frame in report.guards)  # no per-call measurement in this capture
    page = _html(report)
    assert "<th>guards (most in one entry)</th>" in page and "call (µs)" not in page


def test_an_eager_run_shows_no_zero_phases_or_empty_caches():
    report = capture_report("helper_two_callsites")
    assert report.compile_time.phases["inductor"] == 0.0
    text = _parse(_html(report)).visible_text
    assert "Inductor" not in text and "C++ compile" not in text and "0 hit(s), 0 miss(es)" not in text


def test_the_graph_table_counts_the_graphs_the_summary_counts():
    report = capture_report("int_arg_recompile_limit")  # 9 compiles, the last refused at the recompile limit
    row = re.search(r'<td data-label="graphs \(compile ids\)">(\d+) \((0/0, [^)]*)\)</td>', _html(report))
    assert int(row.group(1)) == report.summary.graphs == 8 and row.group(2).endswith("0/8 no graph")


def test_the_graph_table_never_shows_a_backwards_range():
    for report in REPORTS.values():
        for first, last in re.findall(r"lines (\d+)–(\d+)", _html(report)):
            assert int(first) < int(last)


# --- the compile timeline --------------------------------------------------------------------------------


def test_the_timeline_nests_torchs_spans_one_row_per_compiled_function():
    report = capture_report("int_arg_recompile_limit")
    drawn = timeline(report)
    assert drawn is not None and drawn.nested
    (lane,) = drawn.lanes
    assert [row.function for row in lane.rows] == [frame.function for frame in report.compile_time.frames]
    row = lane.rows[0]
    assert row.levels >= 4  # dynamo > entire_frame_compile > compile_attempt_0 > bytecode_tracing
    levels = {box.y for box in row.boxes if box.phase != "failed"}
    assert len(levels) == row.levels
    page = _html(report)
    assert "<title>dynamo (0/0): " in page and "<title>bytecode_tracing: " in page


def test_a_trace_cut_down_to_some_spans_is_drawn_by_the_compiles_phases():
    report = capture_report("repeated_blocks")  # its checked-in capture kept only the C++ compile spans
    drawn = timeline(report)
    assert not drawn.nested and drawn.phases == ("dynamo", "aot_autograd", "inductor", "cpp_compile")
    page = _html(report)
    assert "its phases one after another" in page and "<th>findings</th>" not in page  # no compile has a marker
    events = json.loads(perfetto_trace(report))["traceEvents"]
    assert [e["name"] for e in events if e["ph"] == "X"][0] == "compile 0/0"  # around torch's C++ spans


def test_timeline_markers_link_to_their_findings_and_never_cover_each_other():
    for name, report in REPORTS.items():
        drawn = timeline(report)
        if drawn is None:
            continue
        marked = set()
        for lane in drawn.lanes:
            for row in lane.rows:
                tabs = sorted(row.markers, key=lambda m: (m.lane, m.left))
                for before, after in zip(tabs, tabs[1:], strict=False):
                    if before.lane == after.lane:
                        assert before.left + before.width + MARK_GAP <= after.left, (name, before, after)
                assert all(0 <= m.left and m.left + m.width <= drawn.width for m in row.markers)
                assert row.bars_y >= row.lanes * LANE_HEIGHT
                marked |= {m.rank for m in row.markers}
        page = _html(report)
        for rank in marked:
            assert f'<a href="#finding-{rank}"><title>#{rank} ' in page


def test_the_timeline_marks_recompiles_and_the_fallback_at_their_compiles():
    report = capture_report("int_arg_recompile_limit")
    drawn = timeline(report)
    titles = " ".join(m.title for lane in drawn.lanes for row in lane.rows for m in row.markers)
    for finding in report.findings:
        kind = "recompile" if finding.kind == "recompile" else "fallback"
        for compile_id in finding.evidence.compile_ids:
            assert re.search(rf"#{finding.rank} {finding.code} {kind} \([^)]*\b{compile_id}\b", titles)
    assert drawn.marks == ("recompile", "fallback")
    assert [c.findings for c in drawn.compiles.rows if c.compile_id == "0/8"] == [((1, "fallback"), (2, "recompile"))]


def test_the_legend_lists_what_is_drawn_and_a_failure_is_not_drawn_as_a_fallback():
    report = capture_report("int_arg_recompile_limit")
    failure = dataclasses.replace(report.findings[0], kind="compile_failure")
    page = _html(dataclasses.replace(report, findings=(failure, *report.findings[1:])))
    legend = re.search(r'<div class="legend">(.*?)</div>', page, re.S).group(1)
    assert "compile failure" in legend and "fallback to eager" not in legend
    assert 'class="mk mk-failure"' in page and 'class="mk mk-fallback"' not in page
    assert "torch gave up on the compile" in legend  # the compile 0/8 that gave no graph, outlined


def test_a_multirank_page_shows_the_ranks_side_by_side_with_the_divergence():
    report = multirank_report()
    page = _html(report)
    assert "Ranks side by side" in page and "Where the ranks diverge" in page
    assert page.count('class="rank"') == len(report.rank_table) == 2
    assert '<p class="tl-rank">rank 0</p>' in page and '<p class="tl-rank">rank 1</p>' in page
    divergence = [f for f in report.findings if f.kind == "rank_divergence"]
    assert divergence and all(f'href="#finding-{f.rank}"' in page for f in divergence)


# --- the Perfetto file -----------------------------------------------------------------------------------


def test_the_perfetto_file_holds_torchs_spans_one_track_per_function_and_the_findings():
    report = capture_report("int_arg_recompile_limit")
    trace = json.loads(perfetto_trace(report))
    events = trace["traceEvents"]
    spans = [e for e in events if e["ph"] == "X"]
    recorded = [s for frame in report.compile_time.frames for c in frame.compiles for s in c.spans]
    assert len(spans) == len(recorded) and {e["name"] for e in spans} >= {"dynamo", "bytecode_tracing"}
    assert all(e["ts"] >= 0 and e["dur"] >= 0 and e["args"]["compile_id"] for e in spans)
    tracks = {e["tid"]: e["args"]["name"] for e in events if e["name"] == "thread_name"}
    assert tracks == {1: "warmup_sgd_update (int_arg_recompile_limit.py:8)"}
    marks = {e["name"] for e in events if e["ph"] == "i"}
    assert marks == {"#1 TCD402 fallback", "#2 TCD202 recompile"}
    assert not ABSOLUTE_PATH.search(json.dumps(trace))


def test_no_perfetto_file_for_a_trace_without_spans():
    assert perfetto_trace(capture_report("hf_switch_tiny")) is None  # its capture was stripped of them


def test_report_with_an_output_file_writes_the_perfetto_file_beside_the_page(tmp_path):
    page = tmp_path / "page.html"
    result = CliRunner().invoke(
        app, ["report", str(CAPTURES / "int_arg_recompile_limit"), "--format", "html", "-o", str(page)]
    )
    assert result.exit_code == 0, result.output
    beside = tmp_path / "page.perfetto.json"
    assert json.loads(beside.read_text())["traceEvents"]
    assert '<a href="page.perfetto.json">page.perfetto.json</a>' in page.read_text()
    to_stdout = CliRunner().invoke(app, ["report", str(CAPTURES / "int_arg_recompile_limit"), "--format", "html"])
    assert "<code>-o PAGE.html</code>" in to_stdout.output and sorted(tmp_path.iterdir()) == [page, beside]
