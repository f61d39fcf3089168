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
