"""Renderers: one module per format, each a pure function (Report, RenderOptions) -> text. They do no I/O: the
source lines they show come with the report's locations, and only the CLI writes (`render_to` hands a format's text
to the CLI's write function in parts, where the format makes it in parts: JSON)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING

from torchcompile_doctor.renderers.options import DEFAULT_OPTIONS, RenderOptions

if TYPE_CHECKING:  # the report model is loaded by whoever made the report: the CLI's start-up needs only FORMATS
    from torchcompile_doctor.model.report import Report

__all__ = [
    "DEFAULT_OPTIONS",
    "FORMATS",
    "Format",
    "RenderOptions",
    "Renderer",
    "render",
    "render_all",
    "render_to",
    "renderer_for",
]

Renderer = Callable[["Report", RenderOptions], str]
ManyRenderer = Callable[[Sequence["Report"], RenderOptions], str]


class Format(StrEnum):
    """The `--format` choices; each has one module below (a test checks the list is complete)."""

    TERMINAL = "terminal"
    JSON = "json"
    MARKDOWN = "markdown"
    SARIF = "sarif"
    JUNIT = "junit"
    GITHUB = "github"
    HTML = "html"


# format -> the module that renders it (imported lazily: rich is only loaded for the terminal)
_MODULES: dict[Format, str] = {
    Format.TERMINAL: "torchcompile_doctor.renderers.terminal",
    Format.JSON: "torchcompile_doctor.renderers.json",
    Format.MARKDOWN: "torchcompile_doctor.renderers.markdown",
    Format.SARIF: "torchcompile_doctor.renderers.sarif",
    Format.JUNIT: "torchcompile_doctor.renderers.junit",
    Format.GITHUB: "torchcompile_doctor.renderers.github",
    Format.HTML: "torchcompile_doctor.renderers.html",
}
FORMATS = tuple(fmt.value for fmt in Format)


def renderer_for(fmt: str) -> Renderer:
    """The render function of a format."""
    render: Renderer = importlib.import_module(_MODULES[Format(fmt)]).render
    return render


def render(report: Report, fmt: str, options: RenderOptions = DEFAULT_OPTIONS) -> str:
    return renderer_for(fmt)(report, options)


def render_to(report: Report, fmt: str, options: RenderOptions, write: Callable[[str], object]) -> None:
    """`render`'s text handed to `write`: in parts by a format that writes a big report piece by piece (JSON), else
    whole."""
    module = importlib.import_module(_MODULES[Format(fmt)])
    in_parts: Callable[[Report, RenderOptions, Callable[[str], object]], None] | None = getattr(
        module, "render_to", None
    )
    if in_parts is not None:
        in_parts(report, options, write)
    else:
        write(module.render(report, options))


def render_all(reports: Iterable[Report], fmt: str, options: RenderOptions = DEFAULT_OPTIONS) -> str:
    """Several reports in one output: the format's own `render_many` (one SARIF log, one JUnit document) when it
    has one, else each report rendered and separated by a blank line."""
    module = importlib.import_module(_MODULES[Format(fmt)])
    render_many: ManyRenderer | None = getattr(module, "render_many", None)
    if render_many is not None:
        return render_many(list(reports), options)
    return "\n\n".join(module.render(report, options).rstrip("\n") for report in reports) + "\n"
