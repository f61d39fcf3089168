"""A payload logged again is parsed once and kept once (issue 36): a long job logs the same guard set, graph break and
graph on many compiles, and a copy per record made a big log's events grow with its records, not with what they
say. Counted as objects, not timed: the events of a log that repeats recorded traces, each copy with new frame ids."""

from __future__ import annotations

from pathlib import Path

from support.repeated_traces import repeated_log as _log
from support.repeated_traces import repeated_trace

from torchcompile_doctor.events.load import read_trace_files
from torchcompile_doctor.events.parsers import common, guards_tree, output_graph


def test_a_guard_set_logged_again_is_one_object() -> None:
    one, three = _log(1), _log(3)
    assert len(three.guard_trees) == 3 * len(one.guard_trees) > 0
    sets = [tree.guards for tree in three.guard_trees]
    assert len({id(guards) for guards in sets}) == len(set(sets)) <= len(one.guard_trees)
    # each record keeps its own compile
    assert len({tree.compile_id for tree in three.guard_trees}) == len(three.guard_trees)


def test_a_graph_break_logged_again_is_parsed_once_and_keeps_its_compile() -> None:
    one, three = _log(1), _log(3)
    breaks = three.graph_breaks
    assert len(breaks) == 3 * len(one.graph_breaks) > 0
    assert len({id(brk.raw) for brk in breaks}) == len({brk.raw for brk in breaks}) <= len(one.graph_breaks)
    assert len({id(brk.user_stack) for brk in breaks}) < len(breaks)
    assert [brk.compile_id.frame_compile_id for brk in breaks if brk.compile_id] == [
        brk.compile_id.frame_compile_id for brk in one.graph_breaks if brk.compile_id
    ] * 3
    assert len({brk.compile_id for brk in breaks}) > len({brk.compile_id for brk in one.graph_breaks})


def test_a_graph_compiled_again_is_read_once() -> None:
    three = _log(3)
    graphs = three.output_graphs
    assert graphs and len({id(graph.calls) for graph in graphs}) < len(graphs)
    assert len({graph.compile_id for graph in graphs}) == len(graphs)


def _table_sizes() -> list[int]:
    return [
        common.stack_frame.cache_info().currsize,
        guards_tree._guard.cache_info().currsize,
        len(common._SHARED),
        len(guards_tree._TREES._made),
        len(output_graph._GRAPHS._made),
    ]


def test_the_tables_that_share_objects_go_with_the_read(tmp_path: Path) -> None:
    """Once a capture's files are read, the tables that found what they share are emptied (a table kept after the
    read held about 1 MB of a big trace's report while it was analysed); what the events share stays shared."""
    for rank in (0, 1):
        (tmp_path / f"dedicated_log_torch_trace_rank_{rank}_x.log").write_bytes(repeated_trace(2))
    _log(1)  # a read that leaves the tables filled
    assert all(_table_sizes())
    traces = read_trace_files(tmp_path)
    assert _table_sizes() == [0] * 5
    first, second = ({id(tree.guards) for tree in trace.log.guard_trees} for trace in traces)
    assert first == second  # a guard set both files logged is one object
