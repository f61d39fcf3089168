"""`artifact:fx_graph_cache_{hit,miss,bypass}` and `artifact:aotautograd_cache_{hit,miss,bypass}`: whether
inductor and AOT autograd compiled a graph or loaded it, why a lookup missed or was bypassed where torch
says so, and what a hit saved.

A graph loaded from the cache logs no perf hints, so the report says when that happened.
"""

from __future__ import annotations

from torchcompile_doctor.events.model import InductorCacheEvent
from torchcompile_doctor.events.parsers.base import Parser
from torchcompile_doctor.events.parsers.common import as_float, as_str, compile_id_of, json_or_none
from torchcompile_doctor.events.reader import Record

_CACHES = {"fx_graph_cache": "fx_graph", "aotautograd_cache": "aot_autograd"}


def parse(record: Record, strings: dict[int, str]) -> InductorCacheEvent:
    name = record.kind.removeprefix("artifact:")
    prefix, _, outcome = name.rpartition("_")
    body = json_or_none(record.payload) if record.payload else None
    body = body if isinstance(body, dict) else {}
    detail = as_str(body.get("cache_bypass_reason")) or as_str(body.get("reason"))
    detail = detail or as_str(body.get("cache_status_detailed"))
    saved_ms = as_float(body.get("time_saved_ms"))
    return InductorCacheEvent(
        compile_id_of(record.meta),
        outcome,
        cache=_CACHES.get(prefix, prefix),
        detail=detail,
        time_saved_s=saved_ms / 1000 if saved_ms is not None else None,
    )


# A miss's payload is the cache key's parts (the whole graph): only hits (time saved) and bypasses (the reason)
# are worth decoding; an FX-graph hit says nothing the AOT-autograd hit does not.
PARSER = Parser(
    frozenset(
        {"artifact:aotautograd_cache_hit", "artifact:fx_graph_cache_bypass", "artifact:aotautograd_cache_bypass"}
    ),
    needs_payload=True,
    parse=parse,
)
PARSER_NO_PAYLOAD = Parser(
    frozenset({"artifact:fx_graph_cache_hit", "artifact:fx_graph_cache_miss", "artifact:aotautograd_cache_miss"}),
    needs_payload=False,
    parse=parse,
)
