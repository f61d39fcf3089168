"""Renderers: one module per format, each a pure function Report -> text. Only the CLI writes."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from torchcompile_doctor.report import Report

Renderer = Callable[..., str]


# format -> the module that renders it (imported lazily: rich is only loaded for the terminal)
_MODULES = {
    "terminal": "torchcompile_doctor.renderers.terminal",
    "json": "torchcompile_doctor.renderers.json",
    "markdown": "torchcompile_doctor.renderers.markdown",
    "sarif": "torchcompile_doctor.renderers.sarif",
    "junit": "torchcompile_doctor.renderers.junit",
    "github": "torchcompile_doctor.renderers.github",
}
FORMATS = tuple(_MODULES)


def renderer_for(name: str) -> Renderer:
    """The render function of a format."""
    import importlib

    return importlib.import_module(_MODULES[name]).render


def render(report: Report, fmt: str, **options) -> str:
    return renderer_for(fmt)(report, **options)


def render_all(reports: Iterable[Report], fmt: str, **options) -> str:
    """Several reports in one output: the format's own `render_many` (one SARIF log, one JUnit document) when it
    has one, else each report rendered and separated by a blank line."""
    import importlib

    module = importlib.import_module(_MODULES[fmt])
    render_many = getattr(module, "render_many", None)
    if render_many is not None:
        return render_many(list(reports), **options)
    return "\n\n".join(module.render(report, **options).rstrip("\n") for report in reports) + "\n"
