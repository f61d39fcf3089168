"""Each parser of torch's text (events/: guard failures, fail reasons, graph-break records, the messages of a text
log), run on every text of every torch release the project has recordings of, compared with a snapshot per
release: tests/events/torch_texts/RELEASE.json (support/torch_texts.py says where the texts come from).

When torch changes a wording, the release's snapshot shows the difference. To add a release, put its recordings
under tests/ (a capture, a trace log, a text log: tests/data/torch_texts/RELEASE/ takes any that no other test
reads), write its snapshot with `UPDATE_SNAPSHOTS=1 .venv/bin/python -m pytest tests/events/test_torch_texts.py`
and read it: it is what the doctor makes of that release's words."""

from __future__ import annotations

import functools
import json
import os

import pytest
from support.paths import TESTS
from support.torch_texts import ReleaseTexts, texts_by_release

SNAPSHOTS = TESTS / "events" / "torch_texts"
UPDATE = bool(os.environ.get("UPDATE_SNAPSHOTS"))


@functools.cache
def _found() -> dict[str, ReleaseTexts]:
    return texts_by_release()


def _releases() -> list[str]:
    """The releases with a snapshot: named by the files, so that collecting the suite reads no recording (the test
    below holds the snapshots to the releases recorded)."""
    return sorted(p.stem for p in SNAPSHOTS.glob("*.json"))


def _write_snapshot(release: str, got: dict) -> None:
    SNAPSHOTS.mkdir(exist_ok=True)
    path = SNAPSHOTS / f"{release}.json"
    path.write_text(json.dumps(got, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")


def test_there_are_recordings_of_several_releases():
    assert {"2.11", "2.13"} <= set(_found())


def test_every_release_recorded_has_its_snapshot():
    missing = sorted(set(_found()) - set(_releases()))
    for release in missing:
        _write_snapshot(release, _found()[release].as_json())
    assert UPDATE or not missing, f"wrote the snapshot of torch {missing} under {SNAPSHOTS.relative_to(TESTS)}: read it"


@pytest.mark.parametrize("release", _releases())
def test_parsers_on_a_release_s_texts(release):
    path = SNAPSHOTS / f"{release}.json"
    texts = _found().get(release)
    assert texts is not None, f"{path.name}: no recording of torch {release} is left under tests/; remove it"
    got = texts.as_json()
    if UPDATE:
        _write_snapshot(release, got)
    assert got == json.loads(path.read_text(encoding="utf-8")), f"{path.name} (UPDATE_SNAPSHOTS=1 rewrites it)"


def _texts(release: str) -> ReleaseTexts:
    texts = _found().get(release)
    assert texts is not None, f"no recording of torch {release} is left under tests/"
    return texts


@pytest.mark.parametrize("release", _releases())
def test_every_guard_failure_text_parses(release):
    texts = _texts(release)
    unparsed = [entry["text"] for entry in texts.guard_failures.values() if entry["parsed"] is None]
    assert not unparsed, unparsed


@pytest.mark.parametrize("release", _releases())
def test_every_graph_break_record_names_its_type_and_place(release):
    texts = _texts(release)
    assert all(entry["parsed"]["gb_type"] and entry["parsed"]["line"] for entry in texts.graph_breaks.values())
