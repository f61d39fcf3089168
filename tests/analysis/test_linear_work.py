"""The analysis' work grows with the log, not faster (issue 36): a long job repeats its compiles, recompiles and
recompile-limit hits thousands of times, and a per-recompile scan of every compile (or of every group, per limit
hit) made a 100 MB trace's analysis take 46 s. Counted, not timed: the Python calls the analysis makes for a log of
k and of 2k copies of recorded traces (each copy a new set of frames, as bench/ingest.py builds its big traces)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from support.repeated_traces import TRACES, repeated_log

from torchcompile_doctor.analysis import AnalysisContext, analyze
from torchcompile_doctor.analysis.index import AnalysisIndex
from torchcompile_doctor.events.model import EventLog


def _log(copies: int) -> EventLog:
    return repeated_log(copies)  # the seeds: a function at the recompile limit, resume functions, dtype and shape


@contextmanager
def _counting() -> Iterator[list[int]]:
    """Counts the Python function calls made inside the block."""
    calls = [0]

    def count(frame: FrameType, event: str, arg: object) -> None:
        if event == "call":
            calls[0] += 1

    sys.setprofile(count)
    try:
        yield calls
    finally:
        sys.setprofile(None)


def _analysis_calls(log: EventLog) -> int:
    context = AnalysisContext(target="trace.log", root=str(TRACES / "scripts"), offline=True)
    with _counting() as calls:
        analyze(log, context)
    return calls[0]


def test_the_repeated_log_holds_what_it_repeats() -> None:
    one, three = _log(1), _log(3)
    assert len(three.recompiles) == 3 * len(one.recompiles) > 0
    assert sum(m.hit_recompile_limit for m in three.metrics) == 3 * sum(m.hit_recompile_limit for m in one.metrics) > 0
    assert len(three.guard_trees) == 3 * len(one.guard_trees) > 0


def test_the_analysis_work_grows_linearly_with_the_log() -> None:
    logs = {copies: _log(copies) for copies in (6, 12, 24)}
    _analysis_calls(logs[6])  # first use: registries, catalogues and source outlines loaded once per process
    calls = {copies: _analysis_calls(log) for copies, log in logs.items()}
    # each doubling of the log at most doubles the work (a fixed part makes it less); a scan of every compile per
    # recompile, or of every recompile per limit hit, quadruples it
    assert calls[12] <= 2.1 * calls[6], calls
    assert calls[24] <= 2.1 * calls[12], calls
    assert calls[24] - calls[12] <= 2.3 * (calls[12] - calls[6]), calls  # the added work per copy does not grow


def _warm_up_calls(copies: int) -> tuple[int, int]:
    """(calls to work out which compiles were still warming up, how many of them were) for `copies` copies."""
    index = AnalysisIndex.build(_log(copies), AnalysisContext(target="trace.log", root=str(TRACES / "scripts")))
    with _counting() as calls:
        warming_up = index.warming_up
    assert index.warming_up is warming_up  # worked out once per index
    return calls[0], len(warming_up)


def test_the_warm_up_of_every_compile_comes_from_one_pass() -> None:
    (small, found_small), (large, found_large) = _warm_up_calls(4), _warm_up_calls(16)
    assert found_large >= found_small > 0  # item_recompile: a new resume function compiled after its recompiles
    assert large <= 4.2 * small, (small, large)  # four times the compiles, four times the work (was sixteen)


def test_the_events_of_a_repeated_log_share_what_they_repeat() -> None:
    """Each copy's stacks and graphs name the same frames and places: kept once, not once per record."""
    log = _log(3)
    frames = [frame for start in log.dynamo_starts for frame in start.stack]
    frames += [frame for brk in log.graph_breaks for frame in brk.user_stack]
    assert len({id(frame) for frame in frames}) == len(set(frames)) < len(frames) / 2
    places = [place for graph in log.output_graphs for place in (*graph.inlined, *graph.calls)]
    assert places and len({id(place) for place in places}) == len(set(places)) < len(places) / 2
