"""JSON, schema version 1 (documented in the README)."""

from __future__ import annotations

import json

from torchcompile_doctor.report import Report


def render(report: Report, **_: object) -> str:
    return json.dumps(report.as_dict(), indent=2, ensure_ascii=False) + "\n"
