"""`dynamo_output_graph`: a graph handed to the backend (we count them; the graph text is not kept)."""

from __future__ import annotations

from torchcompile_doctor.events.model import OutputGraph
from torchcompile_doctor.events.parsers import Parser
from torchcompile_doctor.events.parsers.common import compile_id_of
from torchcompile_doctor.events.reader import Record


def parse(record: Record, strings: dict[int, str]) -> OutputGraph:
    return OutputGraph(compile_id_of(record.meta))


PARSER = Parser(frozenset({"dynamo_output_graph"}), needs_payload=False, parse=parse)
