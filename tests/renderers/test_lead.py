"""The report's lead, "At your code" (#25): each finding whose fix rewrites a line of the user's, with its rank,
the rewritten line's file:line and the change, in the terminal, markdown and HTML reports, and where the rewrite
is made in the JSON (`fix.rewrite_at`). The place shown is the line the fix's `before` quotes, found here by
reading the case's own program, not the finding's location: a recompile's mark_dynamic goes at the user's call
line, an optimizer's lr where the user creates the optimizer. The lead is left out where it would only repeat
the list. On the recorded rule cases, re-read as `doctor report` re-reads them."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from support.captures import reread
from support.paths import DATA, RULES

from torchcompile_doctor.model.report import Finding, Report
from torchcompile_doctor.renderers import RenderOptions, render

LEAD_TITLE = "At your code"
# (the case's capture, the rank of the finding its lead shows, the text of the program's line the rewrite is at)
LED = [
    pytest.param(RULES / "TCD215" / "steady_module_values.capture", 1, "compiled(torch.ones(5))", id="mark_dynamic"),
    pytest.param(RULES / "TCD220" / "optimizer_lr.capture", 1, "torch.optim.Adam(", id="optimizer_lr"),
]
# one finding (the lead would be the list), every finding a rewrite, no finding with a rewrite
NOT_LED = [
    pytest.param(RULES / "TCD301" / "shape.capture", id="one_finding"),
    pytest.param(DATA / "check" / "new_break" / "s.capture", id="every_finding_a_rewrite"),
    pytest.param(DATA / "captures" / "repeated_blocks", id="no_finding_a_rewrite"),
]
_HTML_LEAD = re.compile(r'<section id="at-your-code">(.*?)</section>', re.S)
_TAG = re.compile(r"<[^>]+>")
_ABSOLUTE_PATH = re.compile(r"(?<![\w/:.~<>-])/(?:[\w.+-]+/)+[\w.+-]*")  # /a/b.py, not a URL's path


def _program_line(capture: Path, text: str) -> int:
    """The number of the one line of the case's program that holds `text` (the line the rewrite must be at)."""
    lines = capture.with_suffix(".py").read_text(encoding="utf-8").splitlines()
    found = [number for number, line in enumerate(lines, start=1) if text in line]
    assert len(found) == 1, f"{text!r} is on lines {found} of {capture.with_suffix('.py').name}"
    return found[0]


def _led(capture: Path, rank: int, text: str) -> tuple[Report, Finding, str]:
    """(the report, its led finding, the `file:line` the lead must show)."""
    report = reread(capture)
    finding = report.findings[rank - 1]
    assert finding.location is not None and finding.fix is not None and finding.fix.before
    where = f"{capture.with_suffix('.py').name}:{_program_line(capture, text)}"
    shown = [f.where for f in (finding.location, finding.user_frame) if f is not None]
    assert where not in shown, f"the case must rewrite a line other than the finding's own ({shown})"
    return report, finding, where


def _terminal_lead(report: Report) -> list[str]:
    """The lead's items, one a line (unwrapped, as in a file), each `#RANK CODE FILE:LINE: ...`."""
    blocks = render(report, "terminal", RenderOptions(width=None)).split("\n\n")
    block = next((part for part in blocks if part.startswith(LEAD_TITLE)), "")
    return [line.strip() for line in block.splitlines()[1:]]


def _html_lead(report: Report) -> str | None:
    found = _HTML_LEAD.search(render(report, "html"))
    return html.unescape(_TAG.sub("", found.group(1))) if found else None


@pytest.mark.parametrize(("capture", "rank", "text"), LED)
def test_the_terminal_lead_shows_the_rewritten_line(capture, rank, text):
    report, finding, where = _led(capture, rank, text)
    items = _terminal_lead(report)
    assert len(items) == 1, items
    assert items[0].startswith(f"#{rank} {finding.code} {where}: `{finding.fix.before}` -> `")


@pytest.mark.parametrize(("capture", "rank", "text"), LED)
def test_the_markdown_lead_shows_the_rewritten_line(capture, rank, text):
    report, finding, where = _led(capture, rank, text)
    markdown = render(report, "markdown")
    assert f"**{LEAD_TITLE}" in markdown
    lead = markdown.split(f"**{LEAD_TITLE}", 1)[1].split("\n\n", 2)[1]
    assert lead.splitlines() == [lead.splitlines()[0]]  # one item: the only finding that rewrites a line
    assert lead.startswith(f"- #{rank} `{finding.code}` `{where}`: `{finding.fix.before}` -> `")
    assert markdown.index(LEAD_TITLE) < markdown.index(f"### {rank}. ")  # it leads


@pytest.mark.parametrize(("capture", "rank", "text"), LED)
def test_the_html_lead_shows_the_rewritten_line(capture, rank, text):
    report, finding, where = _led(capture, rank, text)
    lead = _html_lead(report)
    assert lead is not None
    assert f"#{rank} {finding.code} at {where}: {finding.fix.before} → " in lead
    page = render(report, "html")
    assert f'<a href="#finding-{rank}">#{rank}' in page.split('id="at-your-code"', 1)[1]  # links to its finding
    assert page.index('id="at-your-code"') < page.index('id="summary"')  # it leads


@pytest.mark.parametrize(("capture", "rank", "text"), LED)
def test_the_json_says_where_the_rewrite_is_made(capture, rank, text):
    report, finding, where = _led(capture, rank, text)
    document = json.loads(render(report, "json"))
    rewrite_at = document["findings"][rank - 1]["fix"]["rewrite_at"]
    # the file as the JSON shows every file (a location's: the path the run read), with the quoted line's number
    assert rewrite_at == {"file": rewrite_at["file"], "line": int(where.rsplit(":", 1)[1])}
    assert Path(rewrite_at["file"]).name == capture.with_suffix(".py").name
    program_files = {f["location"]["file"] for f in document["findings"] if f["location"]}
    program_files |= {f["user_frame"]["file"] for f in document["findings"] if f["user_frame"]}
    assert rewrite_at["file"] in program_files
    unplaced = [f["fix"]["rewrite_at"] for f in document["findings"] if not f["fix"]["before"]]
    assert unplaced and all(place is None for place in unplaced)


@pytest.mark.parametrize("capture", NOT_LED)
def test_no_lead_where_it_would_repeat_the_list(capture):
    report = reread(capture)
    assert report.findings
    assert LEAD_TITLE not in render(report, "terminal", RenderOptions(width=None))
    assert LEAD_TITLE not in render(report, "markdown")
    assert _html_lead(report) is None
    assert 'href="#at-your-code"' not in render(report, "html")


def test_the_lead_shows_a_file_as_the_report_shows_it_and_the_page_shows_no_machine_path():
    """A package outside the program's folder (a bare trace re-read with another root): the terminal shows the
    rewritten file as the finding's own location shows it, cut to its name like every path on no root (#34)."""
    report = reread(DATA / "recompile_captures" / "pkg_module")
    rewrites = [f for f in report.findings if f.fix and f.fix.rewrite_at and f.fix.rewrite_at.file]
    assert rewrites and 0 < len(rewrites) < len(report.findings)
    items = _terminal_lead(report)
    for item, finding in zip(items, rewrites, strict=True):
        assert finding.location is not None and finding.fix is not None and finding.fix.rewrite_at is not None
        assert finding.location.file == finding.fix.rewrite_at.file
        assert item.startswith(
            f"#{finding.rank} {finding.code} {finding.location.display_file or finding.location.file}:"
        )
    assert all(finding.location.file.startswith("/") for finding in rewrites)  # the case has a machine path to hide
    assert not any(_ABSOLUTE_PATH.search(item) for item in items)
    assert all("…/layers.py:" in item for item in items)
    lead = _html_lead(report)
    assert lead is not None and lead.count("…/layers.py:") == len(rewrites)
    assert not _ABSOLUTE_PATH.search(lead)
