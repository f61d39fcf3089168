"""The capture itself, live: recording a program again today finds what its checked-in capture says, and
`doctor report` on the fresh capture says what the live run said. The offline tests read recorded captures
(tests/data/samples, tests/rules); these runs are what keeps those recordings honest: when torch or the capture
changes what is recorded, they fail and the captures are recorded again (tests/support/recording.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.captures import SAMPLE_CAPTURES, reread
from support.doctor import doctor_in_process
from support.paths import RULES, SAMPLES

from torchcompile_doctor.capture.canary import canary_settings
from torchcompile_doctor.renderers import render

pytestmark = pytest.mark.slow

# a break (shared with tests/capture/test_fidelity.py), recompiles up to the limit, a break inside transformers
PROGRAMS = [
    (SAMPLES, "item_metric.py", SAMPLE_CAPTURES / "item_metric.capture"),
    (SAMPLES, "int_arg_recompile_limit.py", SAMPLE_CAPTURES / "int_arg_recompile_limit.capture"),
    (RULES / "TCD102", "library_logging.py", RULES / "TCD102" / "library_logging.capture"),
]
# The canary lane (`make test-canary`: torch._dynamo.config.nested_graph_breaks = True, torch 2.16's likely default):
# a break inside a function the compiled one calls is recorded once, where torch resumes it, not once per enclosing
# frame it re-traced as the break bubbled up (transformers' logging call: 3 records, compiles 0/0 1/0 2/0, -> 1).
NESTED_GRAPH_BREAKS = canary_settings().get("nested_graph_breaks") is True
NESTED_COUNTS = {"library_logging.py": {"TCD102": 1}}
# findings made of measured seconds (a phase's share of compile time, guard time): a run on a loaded machine may
# cross their thresholds where the recording did not, so a recording again is compared without them
_TIMED_KINDS = ("compile_time", "guard_cost")
# what only a live run knows (how the target ended, and what the notes say of it and of the registry)
_EXIT_FIELDS = ("target_exit_code", "target_status", "notes")


def _what_was_found(report: dict, counts: dict[str, int] | None = None) -> list[tuple]:
    """Each finding's rule, place, count (`counts` per rule, where the canary lane expects another) and title,
    but for findings of measured seconds; sorted, as the order follows measured compile seconds."""
    return sorted(
        (
            f["code"],
            Path(f["location"]["file"]).name if f["location"] else None,
            f["location"] and f["location"]["line"],
            f["location"] and f["location"]["function"],
            (counts or {}).get(f["code"], f["count"]),
            f["title"],
        )
        for f in report["findings"]
        if f["kind"] not in _TIMED_KINDS
    )


def _apart_from_exit(report: dict) -> dict:
    data = {key: value for key, value in report.items() if key not in _EXIT_FIELDS}
    data["findings"] = [f for f in report["findings"] if f["kind"] != "target_error"]
    return data


@pytest.mark.parametrize(("folder", "program", "recorded"), PROGRAMS, ids=[p for _, p, _ in PROGRAMS])
def test_recording_again_finds_what_the_checked_in_capture_says(shared_run, folder, program, recorded, tmp_path):
    live = shared_run("explain", program, "--format", "json", cwd=folder, keep_artifacts=True)
    assert live.returncode == 0, live.stderr[-3000:]
    counts = NESTED_COUNTS.get(program) if NESTED_GRAPH_BREAKS else None
    assert _what_was_found(live.json) == _what_was_found(json.loads(render(reread(recorded), "json")), counts)
    assert live.json["summary"]["graph_breaks"] == reread(recorded).summary.graph_breaks

    offline = doctor_in_process("report", str(live.artifacts), "--format", "json", cwd=tmp_path)
    assert offline.returncode == 0, offline.stderr
    assert _apart_from_exit(offline.json) == _apart_from_exit(live.json)
