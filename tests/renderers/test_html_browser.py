"""The HTML page in headless Chromium, as a reader opens it: at desktop (1400 px) and phone (420 px) width
nothing makes the page scroll sideways and every finding's figures and user line are on screen; printed on A4,
the charts, tables and code fit the page and are kept whole. One browser for the module, driven over the
DevTools pipe (tests/support/browser.py); skipped only where no Chromium is installed (`make browser` installs it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.browser import MEASURE, Browser, chromium_path, pdf_pages, print_height_px, print_width_px
from support.html_pages import named_reports

from torchcompile_doctor.renderers import RenderOptions, render
from torchcompile_doctor.renderers._shareable import Shareable
from torchcompile_doctor.renderers._text import finding_figures

pytestmark = pytest.mark.browser
REPORTS = named_reports()
WIDTHS = (420, 1400)


@pytest.fixture(scope="module")
def browser():
    executable = chromium_path()
    if executable is None:
        pytest.skip("no chromium on PATH: `make browser` installs it (Debian: apt-get install chromium)")
    with Browser(executable) as driven:
        yield driven


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("pages")
    written = {}
    for name, report in REPORTS.items():
        written[name] = folder / f"{name}.html"
        written[name].write_text(render(report, "html", RenderOptions(perfetto_file=f"{name}.perfetto.json")))
    return written


def _what_a_reader_must_see(name: str) -> list[str]:
    report = REPORTS[name]
    shareable = Shareable(report.environment)
    seen = []
    for finding in report.findings:
        seen.append(finding_figures(finding, report.summary.compile_time_s))
        seen += [shareable.text(loc.where) for loc in (finding.location, finding.user_frame) if loc is not None]
    return [" ".join(text.split()) for text in seen if text]


@pytest.mark.parametrize("width", WIDTHS)
def test_nothing_scrolls_sideways_and_every_finding_shows_its_figures(browser, pages, width):
    for name, page in pages.items():
        browser.open(page, width)
        seen = browser.evaluate(MEASURE)
        assert isinstance(seen, dict)
        assert seen["scrollWidth"] <= width and seen["stickingOut"] == [], (name, width, seen["stickingOut"])
        for chart in seen["charts"]:
            assert chart["viewBox"] and chart["width"] <= chart["room"] + 0.5, (name, chart)
        text = " ".join(seen["text"].split())
        for expected in _what_a_reader_must_see(name):
            assert expected in text, (name, width, expected)


def test_printed_on_a4_the_charts_tables_and_code_fit_and_stay_whole(browser, pages):
    width, height = print_width_px(), print_height_px()
    for name, page in pages.items():
        browser.open(page, width, media="print")
        seen = browser.evaluate(MEASURE)
        assert isinstance(seen, dict)
        assert seen["scrollWidth"] <= width and seen["stickingOut"] == [], (name, seen["stickingOut"])
        assert seen["clipped"] == [], (name, seen["clipped"])  # printed, a scroll box would cut its table
        assert seen["charts"] or not REPORTS[name].compile_time
        for chart in seen["charts"]:
            assert chart["width"] <= chart["room"] + 0.5 and chart["height"] < height, (name, chart)
            assert chart["breakInside"] == "avoid", (name, chart)  # no page break through a drawing
        pdf = browser.print_to_pdf()
        assert pdf.startswith(b"%PDF-") and pdf_pages(pdf) >= 1


# What a phone and a printer show of each part: every table's cells inside the window (no column out of sight, a
# stacked row on a phone), the rule codes and compile ids on one line, the timeline's axis in text of at least
# 11 px, and every finding's body shown (a fold left closed on screen prints open).
PARTS = r"""
(() => {
  const width = document.documentElement.clientWidth;
  const cells = [...document.querySelectorAll('table td')].filter((cell) => cell.checkVisibility());
  const outside = cells.filter((cell) => {
    const box = cell.getBoundingClientRect();
    return box.width > 0 && (box.left < -0.5 || box.right > width + 0.5);
  }).map((cell) => cell.textContent.slice(0, 40));
  const split = [...document.querySelectorAll('.rule, td.id')].filter((el) => el.getClientRects().length > 1)
    .map((el) => el.textContent);
  const lines = (el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
  };
  const cutNames = [...document.querySelectorAll('td.code')].filter((td) => td.checkVisibility())
    .filter((td) => td.textContent.trim().length <= 18 && lines(td) > 1).map((td) => td.textContent);
  const axis = [...document.querySelectorAll('.axis span')].map((el) => parseFloat(getComputedStyle(el).fontSize));
  const findings = [...document.querySelectorAll('details.finding')].map((d) => ({
    id: d.id, open: d.open, shown: d.querySelector('.body').checkVisibility()}));
  const breaks = [...document.querySelectorAll('#graphs td[data-label="split at"]')].map((td) => {
    const box = td.getBoundingClientRect();
    return {text: td.textContent, seen: td.checkVisibility() && box.left >= -0.5 && box.right <= width + 0.5};
  });
  return {outside, split, cutNames, axis, findings, breaks};
})()
"""


def test_on_a_phone_every_table_cell_is_in_sight_and_the_axis_is_readable(browser, pages):
    for name, page in pages.items():
        browser.open(page, 420)
        seen = browser.evaluate(PARTS)
        assert isinstance(seen, dict)
        assert seen["outside"] == [], (name, seen["outside"])  # a stacked row, not a column off screen
        assert seen["split"] == [] and seen["cutNames"] == [], (name, seen["split"], seen["cutNames"])
        assert all(size >= 11 for size in seen["axis"]), (name, seen["axis"])
        assert all(cell["seen"] for cell in seen["breaks"]), (name, seen["breaks"])  # the column naming the break
        assert seen["axis"] or not REPORTS[name].compile_time
        assert any(not f["open"] and not f["shown"] for f in seen["findings"]) or all(
            f["open"] for f in seen["findings"]
        )  # on screen a fold stays folded


def test_printed_every_finding_is_open_and_no_code_is_cut(browser, pages):
    folded = 0
    for name, page in pages.items():
        browser.open(page, print_width_px(), media="print")
        seen = browser.evaluate(PARTS)
        assert isinstance(seen, dict)
        assert all(f["shown"] for f in seen["findings"]), (name, seen["findings"])
        folded += sum(not f["open"] for f in seen["findings"])
        assert seen["split"] == [] and seen["outside"] == [], (name, seen["split"], seen["outside"])
        assert seen["cutNames"] == [], (name, seen["cutNames"])  # a short name is never cut mid-word
    assert folded  # some page has a finding folded on screen (low and info start folded), and it printed open
