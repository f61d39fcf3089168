"""Text fit to send to a colleague: paths relative to the program's folder or to the library roots
(site-packages, the standard library), other absolute paths cut to their last part, and no memory addresses
(`0x7f3a...`), which differ on every run and say nothing to the reader. Used by the HTML page and its
Perfetto file; the user's own source lines are shown as written, not through this."""

from __future__ import annotations

import re

from torchcompile_doctor.model.report import RunEnvironment

_LIBRARY_MARKERS = ("/site-packages/", "/dist-packages/")
# An absolute POSIX path starting a token (not the `//` or `/path` of a URL, not `a/b`, not `x / y`): it ends at
# whitespace, a quote, a bracket or a comma; `file.py:12` keeps its line number.
_ABSOLUTE_PATH = re.compile(r"(?<![\w/:.~<>-])/[^\s\"'`<>()\[\]{},;|]+")
_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{4,}\b")
ADDRESS_SHOWN = "0x…"


class Shareable:
    """Rewrites text for a page people share (see the module's docstring)."""

    def __init__(self, environment: RunEnvironment) -> None:
        roots = [environment.program_dir, *environment.library_roots]
        # the longest root first: site-packages inside a venv before the venv's lib dir
        self._roots = sorted({r.rstrip("/") + "/" for r in roots if r.startswith("/") and r.strip("/")}, key=len)[::-1]

    def path(self, path: str) -> str:
        """One absolute path, relative to the root it lies under; elsewhere its file name after `…/`."""
        for root in self._roots:
            if path.startswith(root):
                return path[len(root) :]
        for marker in _LIBRARY_MARKERS:
            if marker in path:
                return path.split(marker, 1)[1]
        head, _, name = path.rstrip("/").rpartition("/")
        return f"…/{name}" if head and name else path

    def text(self, text: str) -> str:
        return _ADDRESS.sub(ADDRESS_SHOWN, _ABSOLUTE_PATH.sub(lambda m: self.path(m.group(0)), text))
