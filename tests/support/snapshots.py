"""Snapshot files (the golden reports, the rendered findings of the rule cases): a test compares what it renders
with the file; `UPDATE_SNAPSHOTS=1` writes the file instead, for a reviewed diff. A missing file is written and
the test fails, so that a new snapshot is never accepted unread."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def assert_matches_snapshot(text: str, snapshot: Path) -> None:
    if os.environ.get("UPDATE_SNAPSHOTS") == "1" or not snapshot.exists():
        snapshot.write_text(text, encoding="utf-8")
        if os.environ.get("UPDATE_SNAPSHOTS") != "1":
            pytest.fail(f"wrote missing snapshot {snapshot.name}; review it and rerun")
    assert text == snapshot.read_text(encoding="utf-8")
