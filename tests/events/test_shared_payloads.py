"""A payload logged again is parsed once and kept once (issue 36): a long job logs the same guard set, graph break and
graph on many compiles, and a copy per record made a big log's events grow with its records, not with what they
say. Counted as objects, not timed: the events of a log that repeats recorded traces, each copy with new frame ids."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

from torchcompile_doctor.events.load import load_trace
from torchcompile_doctor.events.model import EventLog

TRACES = Path(__file__).resolve().parents[1] / "data" / "traces"
SEEDS = ("recompile_limit.log", "item_recompile.log", "dtype_shape_recompile.log")
_ENVELOPE = re.compile(rb"^[VIWEC]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ [^\]]*\] ")


def _repeated(copies: int) -> bytes:
    """The seeds `copies` times over, each copy's frame ids moved past the previous copy's; payloads as written."""
    out: list[bytes] = []
    offset = 0
    for _ in range(copies):
        for seed in SEEDS:
            top = offset
            for line in (TRACES / seed).read_bytes().splitlines(keepends=True):
                match = _ENVELOPE.match(line)
                if match is None:
                    out.append(line)
                    continue
                meta: dict[str, Any] = json.loads(line[match.end() :])
                if isinstance(meta.get("frame_id"), int):
                    meta["frame_id"] += offset
                    top = max(top, meta["frame_id"] + 1)
                out.append(line[: match.end()] + json.dumps(meta).encode() + b"\n")
            offset = top
    return b"".join(out)


def _log(copies: int) -> EventLog:
    log = EventLog()
    load_trace(io.BytesIO(_repeated(copies)), log)
    return log


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
