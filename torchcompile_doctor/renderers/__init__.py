"""Renderers: one module per format, each a pure function Report -> text. Only the CLI writes."""

from __future__ import annotations

from collections.abc import Callable

from torchcompile_doctor.report import Report

Renderer = Callable[..., str]


def renderer_for(name: str) -> Renderer:
    """The render function of a format (imported lazily: rich is only loaded for the terminal)."""
    if name == "terminal":
        from torchcompile_doctor.renderers.terminal import render
    elif name == "json":
        from torchcompile_doctor.renderers.json import render
    elif name == "markdown":
        from torchcompile_doctor.renderers.markdown import render
    else:
        raise KeyError(name)
    return render


FORMATS = ("terminal", "json", "markdown")


def render(report: Report, fmt: str, **options) -> str:
    return renderer_for(fmt)(report, **options)
