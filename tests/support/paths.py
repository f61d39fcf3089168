"""Where things are, found from this checkout (never a machine's absolute path)."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TESTS = REPO / "tests"
DATA = TESTS / "data"
SAMPLES = REPO / "sample_models"
RULES = TESTS / "rules"  # one folder per rule code: its case programs, their captures and findings
