"""`optimize_ddp_split_graph` / `optimize_ddp_split_child`: DDP's optimizer (torch/_dynamo/backends/distributed.py)
cut a compiled graph at gradient-bucket boundaries. Graph splits, not graph breaks: Dynamo traced the code whole.
"""

from __future__ import annotations

from torchcompile_doctor.events.model import DdpSplit
from torchcompile_doctor.events.parsers.base import Parser
from torchcompile_doctor.events.parsers.common import as_int, as_str, compile_id_of
from torchcompile_doctor.events.reader import Record

KINDS = frozenset({"optimize_ddp_split_graph", "optimize_ddp_split_child"})


def parse(record: Record, strings: dict[int, str]) -> DdpSplit | None:
    attempt = as_int(record.meta.get("attempt")) or 0
    if record.kind == "optimize_ddp_split_graph":
        return DdpSplit(compile_id_of(record.meta), attempt, None)
    body = record.meta.get(record.kind)
    name = as_str(body.get("name")) if isinstance(body, dict) else None
    return DdpSplit(compile_id_of(record.meta), attempt, name) if name else None


PARSER = Parser(KINDS, needs_payload=False, parse=parse)
