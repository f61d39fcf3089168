"""model/report.py and model/gate.py: the small definitions every stage reads (how a target ended, ranks as people
write them, where a finding is, what the gate's criteria say on the command line)."""

from __future__ import annotations

import pytest

from torchcompile_doctor.model.gate import GateCriteria
from torchcompile_doctor.model.report import Location, TargetStatus, rank_list, target_succeeded


@pytest.mark.parametrize(
    ("status", "exit_code", "succeeded"),
    [
        ("ok", 0, True),
        ("sys_exit", 0, True),
        ("sys_exit", 1, False),
        ("exception", 1, False),
        ("timeout", None, False),
        ("interrupted", None, False),
        ("signal", -11, False),
        ("unknown", 0, False),
    ],
)
def test_a_target_succeeded_only_when_it_finished_and_exited_0(status, exit_code, succeeded):
    assert target_succeeded(status, exit_code) is succeeded


def test_only_the_targets_own_end_counts_as_finished():
    assert {s for s in TargetStatus if s.finished} == {TargetStatus.OK, TargetStatus.SYS_EXIT}


@pytest.mark.parametrize(
    ("ranks", "written"),
    [((0,), "0"), ((2, 0), "0, 2"), ((3, 1, 0, 2, 5), "0-3, 5"), ((1, 1, 2), "1-2"), ((), "")],
)
def test_ranks_are_written_as_people_write_them(ranks, written):
    assert rank_list(ranks) == written


def test_a_location_shows_its_display_path_when_it_has_one():
    assert Location(file="/abs/proj/train.py", line=7, function="step").where == "/abs/proj/train.py:7"
    shown = Location(file="/abs/proj/train.py", line=7, function="step", display_file="train.py")
    assert shown.where == "train.py:7"


def test_no_criterion_means_fail_on_low_with_preview_rules_left_out():
    default = GateCriteria().or_default()
    assert (default.fail_on, default.by_default) == ("low", True)
    given = GateCriteria(max_recompiles=2)
    assert given.or_default() is given
    assert GateCriteria(fullgraph=True, max_graph_breaks=0, max_recompiles=1, fail_on="high").describe() == (
        "--fullgraph",
        "--max-graph-breaks 0",
        "--max-recompiles 1",
        "--fail-on high",
    )
