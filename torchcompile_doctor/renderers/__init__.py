"""Renderers: one module per format, each a pure function Report -> text. Only the CLI writes."""

from __future__ import annotations

from collections.abc import Callable

from torchcompile_doctor.report import Report

Renderer = Callable[..., str]


# format -> the module that renders it (imported lazily: rich is only loaded for the terminal)
_MODULES = {
    "terminal": "torchcompile_doctor.renderers.terminal",
    "json": "torchcompile_doctor.renderers.json",
    "markdown": "torchcompile_doctor.renderers.markdown",
}
FORMATS = tuple(_MODULES)


def renderer_for(name: str) -> Renderer:
    """The render function of a format."""
    import importlib

    return importlib.import_module(_MODULES[name]).render


def render(report: Report, fmt: str, **options) -> str:
    return renderer_for(fmt)(report, **options)
