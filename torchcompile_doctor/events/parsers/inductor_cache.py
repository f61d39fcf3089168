"""`artifact:fx_graph_cache_{hit,miss,bypass}`: whether inductor compiled a graph or loaded it.

A graph loaded from the cache logs no perf hints, so the report says when that happened.
"""

from __future__ import annotations

from torchcompile_doctor.events.model import InductorCacheEvent
from torchcompile_doctor.events.parsers import Parser
from torchcompile_doctor.events.parsers.common import compile_id_of
from torchcompile_doctor.events.reader import Record


def parse(record: Record, strings: dict[int, str]) -> InductorCacheEvent:
    return InductorCacheEvent(compile_id_of(record.meta), record.kind.rsplit("_", 1)[-1])


PARSER = Parser(
    frozenset({"artifact:fx_graph_cache_hit", "artifact:fx_graph_cache_miss", "artifact:fx_graph_cache_bypass"}),
    needs_payload=False,
    parse=parse,
)
