"""The one options object every renderer takes. The CLI fills it (the tty, NO_COLOR, the terminal's width, the
working directory); a renderer reads nothing else from the outside world."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RenderOptions:
    color: bool = False  # terminal: ANSI styles
    width: int | None = 110  # terminal: the column lines wrap at; None: not wrapped (output to a file or a pipe)
    base_dir: str | None = None  # sarif, junit, github: files under it are written relative to it, as CI expects
    show_guards: bool = False  # terminal: the guards of each compiled frame (`doctor guards`)
    perfetto_file: str | None = None  # html: the Perfetto trace the CLI writes beside the page, as the page links it

    def __post_init__(self) -> None:
        if self.width is not None and self.width < 1:
            raise ValueError(f"width must be at least 1, not {self.width}")


DEFAULT_OPTIONS = RenderOptions()
