"""The HTML page, tested like a page: a strict HTML5 parser finds no error, nothing in it is fetched from a
network address (no script, no external stylesheet, image or font), every value is escaped, a multi-rank page
shows the ranks side by side, and headless Chromium renders it (skipped where no browser is installed)."""

from __future__ import annotations

import dataclasses
import shutil
import struct
import subprocess
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pytest
from support.captures import CAPTURES, merged_multirank, reread
from support.hostile import HOSTILE_TITLE

from torchcompile_doctor.renderers import render

CAPTURE_NAMES = sorted(p.name for p in CAPTURES.iterdir() if p.is_dir())
URL_ATTRIBUTES = {"src", "href", "xlink:href", "action", "formaction", "poster", "srcset", "data", "background"}
FETCHING_TAGS = {"script", "link", "img", "iframe", "object", "embed", "video", "audio", "source", "base"}


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.urls: list[str] = []
        self.styles: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self._in_style = tag == "style"
        for name, value in attrs:
            if name in URL_ATTRIBUTES and value is not None:
                self.urls.append(value)
            if name == "style" and value:
                self.styles.append(value)

    def handle_data(self, data):
        if self._in_style:
            self.styles.append(data)

    def handle_endtag(self, tag):
        self._in_style = False


def _collect(page: str) -> _Collector:
    collector = _Collector()
    collector.feed(page)
    return collector


def _strict_parse(page: str) -> None:
    """html5lib in strict mode raises on the first parse error (a test dependency: pyproject [test])."""
    html5lib = pytest.importorskip("html5lib", reason="html5lib is not installed (pip install -e '.[test]')")
    html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(page)


@pytest.mark.parametrize("name", CAPTURE_NAMES)
def test_the_page_is_valid_html5(name):
    _strict_parse(render(reread(CAPTURES / name), "html"))


@pytest.mark.parametrize("name", CAPTURE_NAMES)
def test_nothing_is_fetched_from_the_network(name):
    page = render(reread(CAPTURES / name), "html")
    found = _collect(page)
    assert not FETCHING_TAGS & set(found.tags)
    assert all(url.startswith("#") for url in found.urls), found.urls  # in-page links only
    for css in found.styles:
        assert "url(" not in css and "@import" not in css
    assert "<svg" in page  # the pictures are inline


def test_every_value_is_escaped():
    report = reread(CAPTURES / "repeated_blocks")
    first = report.findings[0]
    hostile = dataclasses.replace(first, title=HOSTILE_TITLE, why="`<img src=x onerror=alert(1)>` and <b>bold</b>")
    page = render(dataclasses.replace(report, target="<script>t()</script>", findings=(hostile,)), "html")
    _strict_parse(page)
    found = _collect(page)
    assert "script" not in found.tags and "img" not in found.tags
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "&lt;b&gt;bold&lt;/b&gt;" in page and "&lt;script&gt;t()&lt;/script&gt;" in page


def test_the_compile_time_pictures_come_from_the_report():
    report = reread(CAPTURES / "repeated_blocks")
    page = render(report, "html")
    frame = report.compile_time.frames[0]
    assert f"C++ compile: {frame.phases['cpp_compile']:.2f} s" in page  # a bar segment's tooltip
    assert "Encoder.forward compile 0/0" in page  # the compile on the timeline
    assert "for block in model.blocks: block.compile()" in page
    assert '<pre class="source">' in page and 'class="marked"' in page


def test_a_multirank_page_shows_the_ranks_side_by_side_with_the_divergence():
    report = merged_multirank()
    page = render(report, "html")
    _strict_parse(page)
    assert "Ranks side by side" in page and "Where the ranks diverge" in page
    assert page.count('class="rank"') == len(report.rank_table) == 2
    assert ">rank 0<" in page and ">rank 1<" in page  # one timeline lane per rank
    divergence = [f for f in report.findings if f.kind == "rank_divergence"]
    assert divergence and all(f'href="#finding-{f.rank}"' in page for f in divergence)


# --- headless Chromium -----------------------------------------------------------------------------------


def _browser() -> str | None:
    return next((shutil.which(name) for name in ("chromium", "chromium-browser") if shutil.which(name)), None)


def _png_pixels(path: Path) -> bytes:
    """The decompressed scanlines of a PNG (filter bytes included): enough to tell a blank page."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    chunks, offset = [], 8
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset : offset + 4])
        kind = data[offset + 4 : offset + 8]
        if kind == b"IDAT":
            chunks.append(data[offset + 8 : offset + 8 + length])
        offset += 12 + length
    return zlib.decompress(b"".join(chunks))


@pytest.mark.skipif(_browser() is None, reason="no chromium installed (Debian: apt-get install chromium)")
def test_headless_chromium_renders_the_page(tmp_path):
    report = reread(CAPTURES / "repeated_blocks")
    page = tmp_path / "report.html"
    page.write_text(render(report, "html"), encoding="utf-8")
    shot = tmp_path / "shot.png"
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", f"--user-data-dir={tmp_path / 'p'}"]
    subprocess.run(
        [_browser(), *flags, f"--screenshot={shot}", "--window-size=1200,1600", page.as_uri()],
        capture_output=True,
        timeout=120,
        check=True,
    )
    pixels = _png_pixels(shot)
    assert len(set(pixels)) > 32  # text, bars and colours, not one blank colour
    dom = subprocess.run(
        [_browser(), *flags, "--dump-dom", page.as_uri()], capture_output=True, timeout=120, check=True, text=True
    ).stdout
    for finding in report.findings:
        assert f'id="finding-{finding.rank}"' in dom and finding.code in dom
    assert "is traced and compiled 16 times inside" in dom


def test_the_timeline_marks_recompiles_and_the_fallback_at_their_compiles():
    report = reread(CAPTURES / "int_arg_recompile_limit")
    page = render(report, "html")
    for finding in report.findings:
        if finding.kind in ("recompile", "recompile_limit"):
            kind = "recompile" if finding.kind == "recompile" else "fallback"
            for compile_id in finding.evidence["compile_ids"]:
                assert f"<title>#{finding.rank} {finding.code} {kind} ({compile_id})</title>" in page
