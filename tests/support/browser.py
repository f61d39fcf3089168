"""Headless Chromium driven over the DevTools protocol, with the standard library only, for the tests that look at
the HTML page as a reader does: laid out at a given width, measured, printed to PDF.

Chromium's `--remote-debugging-pipe` reads protocol messages (JSON, each ended by a NUL byte) on its fd 3 and
writes answers and events on its fd 4; a shell `exec` puts our two pipes there. The page itself never runs a
script (it has none): the measurements are expressions the driver evaluates in it, as DevTools' console does.
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# The flags that work on this project's machines (no sandbox as root, no GPU, nothing fetched in the background)
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--hide-scrollbars",
    "--mute-audio",
)
TIMEOUT_S = 30.0
A4_MM = (210, 297)
PRINT_MARGIN_MM = 12  # the page's @page margin
CSS_PX_PER_MM = 96 / 25.4


class BrowserError(RuntimeError):
    pass


def chromium_path() -> str | None:
    """Debian's `chromium` (the Makefile's `browser` target installs it), or a `chromium-browser` elsewhere."""
    return next((path for name in ("chromium", "chromium-browser") if (path := shutil.which(name))), None)


# Puts the pipe ends given as its first two arguments on fds 3 and 4 and execs the rest (a shell cannot: POSIX
# sh redirects single-digit fds only, and the ends may be numbered 3 and 4 the wrong way round)
_ON_FDS_3_AND_4 = """
import os, sys
reading, writing = (os.dup(int(fd)) for fd in sys.argv[1:3])
os.dup2(reading, 3)
os.dup2(writing, 4)
for fd in (3, 4):
    os.set_inheritable(fd, True)  # dup2 onto itself (the dup was already 3) leaves close-on-exec set
os.execvp(sys.argv[3], sys.argv[3:])
"""


class Browser:
    """One headless Chromium and one tab, driven over the DevTools pipe. Use as a context manager."""

    def __init__(self, executable: str) -> None:
        self._profile = tempfile.mkdtemp(prefix="doctor-chromium-")
        to_browser_read, self._to_browser = os.pipe()
        self._from_browser, from_browser_write = os.pipe()
        flags = [*FLAGS, f"--user-data-dir={self._profile}", "--remote-debugging-pipe"]
        ends = (str(to_browser_read), str(from_browser_write))
        self._process = subprocess.Popen(
            [sys.executable, "-c", _ON_FDS_3_AND_4, *ends, executable, *flags],
            pass_fds=(to_browser_read, from_browser_write),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_browser_read)
        os.close(from_browser_write)
        self._buffer = b""
        self._next_id = 0
        self._events: list[dict] = []
        target = self._call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._session = self._call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.call("Page.enable")

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        try:
            self._call("Browser.close")
        except (BrowserError, OSError):
            pass
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        for fd in (self._to_browser, self._from_browser):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self._profile, ignore_errors=True)

    # -- the protocol

    def _send(self, message: dict) -> None:
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self._to_browser, data) :]

    def _receive(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_browser], [], [], left)[0]:
                raise BrowserError("chromium did not answer in time")
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                raise BrowserError(f"chromium closed the DevTools pipe (exit code {self._process.poll()})")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)

    def _call(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        self._next_id += 1
        message: dict = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        self._send(message)
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            answer = self._receive(deadline)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            if "method" in answer:
                self._events.append(answer)

    def call(self, method: str, params: dict | None = None) -> dict:
        """A command to the tab."""
        return self._call(method, params, self._session)

    def _wait_for(self, event: str) -> None:
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            for index, seen in enumerate(self._events):
                if seen.get("method") == event:
                    del self._events[: index + 1]
                    return
            self._events.append(self._receive(deadline))

    # -- what the tests use

    def open(self, page: Path, width: int, height: int = 900, media: str = "screen") -> None:
        """Lay `page` out in a window `width` CSS pixels wide, for the screen or for print."""
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )
        self.call("Emulation.setEmulatedMedia", {"media": media})
        self._events.clear()
        self.call("Page.navigate", {"url": page.resolve().as_uri()})
        self._wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> object:
        """The value of a JavaScript expression in the open page (the driver's, not the page's)."""
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise BrowserError(f"evaluation failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def print_to_pdf(self) -> bytes:
        """The open page printed as Chromium prints it (its @page size and margins)."""
        result = self.call("Page.printToPDF", {"preferCSSPageSize": True, "printBackground": True})
        return base64.b64decode(result["data"])

    def screenshot(self, path: Path) -> None:
        """The whole page as a PNG (for looking at it; tests measure rather than compare pictures)."""
        size = self.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
        assert isinstance(size, list)
        clip = {"x": 0, "y": 0, "width": size[0], "height": size[1], "scale": 1}
        result = self.call("Page.captureScreenshot", {"format": "png", "clip": clip, "captureBeyondViewport": True})
        path.write_bytes(base64.b64decode(result["data"]))


def print_width_px() -> int:
    """The width of an A4 page's printable box at the page's margins, in CSS pixels."""
    return int((A4_MM[0] - 2 * PRINT_MARGIN_MM) * CSS_PX_PER_MM)


def print_height_px() -> int:
    return int((A4_MM[1] - 2 * PRINT_MARGIN_MM) * CSS_PX_PER_MM)


def pdf_pages(pdf: bytes) -> int:
    """Pages of a PDF Chromium wrote (its page objects are uncompressed `/Type /Page` dictionaries)."""
    return pdf.count(b"/Type /Page") - pdf.count(b"/Type /Pages")


# What the page looks like to a reader, measured in the laid-out page: whether it scrolls sideways and what sticks
# out (outside a scroll box), the drawings' widths against their boxes, and the text a reader sees.
MEASURE = r"""
(() => {
  const root = document.documentElement;
  const width = root.clientWidth;
  const inScrollBox = (el) => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      const overflow = getComputedStyle(p).overflowX;
      if (overflow === 'auto' || overflow === 'scroll') return p;
    }
    return null;
  };
  const describe = (el) => `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}.${el.getAttribute('class') || ''}`;
  const stickingOut = [];
  for (const el of document.body.querySelectorAll('*')) {
    const box = el.getBoundingClientRect();
    if (!box.width || inScrollBox(el)) continue;
    if (box.right > width + 0.5 || box.left < -0.5) {
      stickingOut.push(`${describe(el)} ${Math.round(box.left)}..${Math.round(box.right)}`);
    }
  }
  const clipped = [];
  for (const box of document.querySelectorAll('.scroll')) {
    if (box.scrollWidth > box.clientWidth + 1) {
      clipped.push(`${describe(box.firstElementChild)} ${box.scrollWidth} > ${box.clientWidth}`);
    }
  }
  const charts = [...document.querySelectorAll('.chart > svg, .chart .row > svg')].map((svg) => {
    const box = svg.getBoundingClientRect(), parent = svg.parentElement.getBoundingClientRect();
    return {width: box.width, height: box.height, room: parent.width, viewBox: svg.getAttribute('viewBox'),
            breakInside: getComputedStyle(svg.closest('.row') || svg).breakInside, top: box.top + scrollY};
  });
  return {width, scrollWidth: root.scrollWidth, stickingOut: stickingOut.slice(0, 12), clipped, charts,
          text: document.body.innerText};
})()
"""
