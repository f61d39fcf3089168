"""JSON, schema version 1 (documented in the README)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from torchcompile_doctor.model.json import JSON, json_items, to_json
from torchcompile_doctor.model.report import Report
from torchcompile_doctor.renderers.json_text import dump_object, dumps
from torchcompile_doctor.renderers.options import DEFAULT_OPTIONS, RenderOptions


def _document(report: Report, options: RenderOptions) -> JSON:
    """The report's JSON, its notes worded for people as every format shows them (no machine path in them)."""
    document = to_json(report)
    if isinstance(document, dict):
        document["notes"] = list(report.display_notes(options.base_dir))
    return document


def render(report: Report, options: RenderOptions = DEFAULT_OPTIONS) -> str:
    return dumps(_document(report, options)) + "\n"


def render_to(report: Report, options: RenderOptions, write: Callable[[str], object]) -> None:
    """`render`'s text handed to `write` in parts (the CLI writes them as they come: a big trace's report is tens
    of MB of text, never whole in memory), each of the report's sections made when it is written and let go after
    (its guards section alone is half of it)."""
    notes: JSON = list(report.display_notes(options.base_dir))
    dump_object(((key, notes if key == "notes" else value) for key, value in json_items(report)), write)
    write("\n")


def render_many(reports: Sequence[Report], options: RenderOptions = DEFAULT_OPTIONS) -> str:
    """Several targets (`doctor check` with a config's `targets`): a JSON list of reports."""
    return dumps([_document(report, options) for report in reports]) + "\n"
