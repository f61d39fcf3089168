"""How a run that did not end by itself is worded (issue 34): stopped from outside (the --timeout, Ctrl-C,
SIGTERM, SIGKILL) reads as stopped, with the signal or the timeout, live and from the record the parent keeps in
the capture; a crash (SIGSEGV) still reads as a crash. Nothing here starts a process."""

from __future__ import annotations

import signal

import pytest

from torchcompile_doctor.analysis.detectors.outcome import target_outcome_of
from torchcompile_doctor.capture.runner import _outcome, _record_end
from torchcompile_doctor.capture_layout import CaptureFolder
from torchcompile_doctor.events.load import read_side_channel_file
from torchcompile_doctor.events.model import RunOutcome
from torchcompile_doctor.model.report import TargetStatus, target_ending

STOPS = [
    (RunOutcome(timed_out=True, timeout_s=30.0, elapsed_s=30.1), "stopped at the --timeout of 30 s"),
    (RunOutcome(interrupted=True, stopped_by=signal.SIGINT, elapsed_s=12.3), "stopped by SIGINT (Ctrl-C) after 12.3 s"),
    (RunOutcome(interrupted=True, stopped_by=signal.SIGTERM, elapsed_s=4.0), "stopped by SIGTERM after 4.0 s"),
    (RunOutcome(signal=signal.SIGKILL, elapsed_s=61.5), "stopped by SIGKILL after 61.5 s"),
]


@pytest.mark.parametrize(("outcome", "words"), STOPS, ids=["timeout", "ctrl-c", "sigterm", "sigkill"])
def test_a_stopped_run_is_worded_as_stopped_live_and_read_back(tmp_path, outcome, words):
    assert outcome.how_stopped == words
    live = target_outcome_of(outcome, None)
    assert (live.message, live.stopped) == (words, True)
    _record_end(tmp_path, outcome, None)  # what the parent keeps in the capture for a later `doctor report`
    (record,) = read_side_channel_file(CaptureFolder(tmp_path).side_channel).target_exits
    read_back = target_outcome_of(RunOutcome(), record)
    assert (read_back.status, read_back.exit_code, read_back.message) == (live.status, live.exit_code, words)
    assert read_back.stopped
    ending = target_ending(read_back.status, read_back.exit_code)
    assert ending is not None and "None" not in ending


def test_a_crash_is_no_stop_and_is_read_back_as_a_crash(tmp_path):
    crash = RunOutcome(signal=signal.SIGSEGV, elapsed_s=2.0)
    assert crash.how_stopped is None and crash.how_it_died == "crashed with SIGSEGV"
    found = target_outcome_of(crash, None)
    expected = (TargetStatus.SIGNAL, -signal.SIGSEGV, "crashed with SIGSEGV", False)
    assert (found.status, found.exit_code, found.message, found.stopped) == expected
    _record_end(tmp_path, crash, None)
    (record,) = read_side_channel_file(CaptureFolder(tmp_path).side_channel).target_exits
    read_back = target_outcome_of(RunOutcome(), record)
    assert (read_back.status, read_back.exit_code, read_back.message, read_back.stopped) == expected


def test_a_run_that_ended_by_itself_leaves_no_record_of_the_parent(tmp_path):
    for ended in (RunOutcome(returncode=0, elapsed_s=1.0), RunOutcome(returncode=3, elapsed_s=1.0)):
        assert ended.how_it_died is None
        _record_end(tmp_path, ended, None)  # the child's own record says how it ended
    assert not CaptureFolder(tmp_path).side_channel.exists()


def test_the_runner_tells_who_stopped_the_run():
    """The parent's view: a negative return code is the child's own signal unless the doctor stopped it."""
    assert _outcome(-9, False, None, None, 3.04) == RunOutcome(signal=9, elapsed_s=3.0)
    stopped = _outcome(-15, False, signal.SIGTERM, None, 7.26)
    assert (stopped.returncode, stopped.signal, stopped.interrupted, stopped.stopped_by) == (None, None, True, 15)
    assert stopped.how_stopped == "stopped by SIGTERM after 7.3 s"
    assert _outcome(None, True, None, 5.0, 5.02).how_stopped == "stopped at the --timeout of 5 s"
