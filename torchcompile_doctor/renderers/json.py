"""JSON, schema version 1 (documented in the README)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from torchcompile_doctor.model.json import to_json
from torchcompile_doctor.model.report import Report
from torchcompile_doctor.renderers.options import DEFAULT_OPTIONS, RenderOptions


def render(report: Report, options: RenderOptions = DEFAULT_OPTIONS) -> str:
    return json.dumps(to_json(report), indent=2, ensure_ascii=False) + "\n"


def render_many(reports: Sequence[Report], options: RenderOptions = DEFAULT_OPTIONS) -> str:
    """Several targets (`doctor check` with a config's `targets`): a JSON list of reports."""
    return json.dumps([to_json(report) for report in reports], indent=2, ensure_ascii=False) + "\n"
