"""The JSON report's schema, version 1 (tests/data/report-schema-v1.json, JSON Schema draft 7: every object lists
its keys and admits no other), and the check of a rendered report against it. tests/renderers/test_json_schema.py
checks the reports of the golden, multi-rank, GPU, check and try-fixes captures; tests/rules/test_rule_cases.py
checks every rule case's report as it reads it (every finding family)."""

from __future__ import annotations

import json

import jsonschema

from support.paths import DATA

SCHEMA = json.loads((DATA / "report-schema-v1.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft7Validator(SCHEMA)  # the schema itself is checked by test_json_schema.py


def check_report_json(document: object) -> None:
    """Raises jsonschema.ValidationError where `document` (a parsed JSON report) strays from schema version 1."""
    VALIDATOR.validate(document)
