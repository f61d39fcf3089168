"""Text fit to send to a colleague: every absolute path shown as `model.paths.display_path` shows it (relative to
the program's folder or to the library roots, else `…/NAME`), and no memory addresses (`0x7f3a...`), which differ
on every run and say nothing to the reader. Used by the HTML page and its Perfetto file; the user's own source
lines are shown as written, not through this."""

from __future__ import annotations

import re

from torchcompile_doctor.model.paths import display_path, display_roots, display_text
from torchcompile_doctor.model.report import RunEnvironment

_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{4,}\b")
ADDRESS_SHOWN = "0x…"


class Shareable:
    """Rewrites text for a page people share (see the module's docstring)."""

    def __init__(self, environment: RunEnvironment, base_dir: str | None = None) -> None:
        self._roots = display_roots(environment.program_dir, environment.library_roots, base_dir)
        self._near = environment.program_dir

    def path(self, path: str) -> str:
        """One absolute path as `model.paths.display_path` shows it."""
        return display_path(path, self._roots, self._near)

    def text(self, text: str) -> str:
        return _ADDRESS.sub(ADDRESS_SHOWN, display_text(text, self._roots, self._near))
