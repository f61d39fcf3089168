"""The explicit registry of event parsers: one module per event kind.

A parser (base.py) names the record kinds it handles and turns one `Record` into one event (or None).
Kinds nobody handles are counted as unknown, never an error: torch adds kinds every release.
"""

from __future__ import annotations

import functools

from torchcompile_doctor.events.parsers import (
    chromium_event,
    compilation_metrics,
    ddp_split,
    dynamo_start,
    graph_break_reason,
    guards_tree,
    inductor_cache,
    output_graph,
    recompile_reasons,
    torch_version,
)
from torchcompile_doctor.events.parsers.base import IGNORED_KINDS, NOT_AN_EVENT, Parser

__all__ = ["IGNORED_KINDS", "NOT_AN_EVENT", "Parser", "default_parsers", "parser_table"]


def default_parsers() -> list[Parser]:
    return [
        dynamo_start.PARSER,
        compilation_metrics.PARSER,
        compilation_metrics.BACKWARD_PARSER,
        graph_break_reason.PARSER,
        recompile_reasons.PARSER,
        output_graph.PARSER,
        inductor_cache.PARSER,
        inductor_cache.PARSER_NO_PAYLOAD,
        guards_tree.PARSER,
        torch_version.PARSER,
        ddp_split.PARSER,
        chromium_event.PARSER,
    ]


@functools.cache
def parser_table() -> dict[str, Parser]:
    """The default parsers by the record kind they handle; built once per process, not per file."""
    return {kind: parser for parser in default_parsers() for kind in parser.kinds}
