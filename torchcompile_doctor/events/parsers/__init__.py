"""The explicit registry of event parsers: one module per event kind.

A parser names the record kinds it handles and turns one `Record` into one event (or None).
Kinds nobody handles are counted as unknown, never an error: torch adds kinds every release.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from torchcompile_doctor.events.reader import Record

# What a parser returns for a record it recognises but that carries nothing new (not a parse error).
NOT_AN_EVENT = object()


@dataclass(frozen=True)
class Parser:
    kinds: frozenset[str]
    needs_payload: bool
    parse: Callable[[Record, dict[int, str]], object | None]


# Kinds we read past on purpose (graphs, timings, tensors): not "unknown".
IGNORED_KINDS = frozenset(
    {
        "describe_storage",
        "describe_tensor",
        "describe_source",
        "str",
        "aot_joint_graph",
        "aot_forward_graph",
        "aot_backward_graph",
        "aot_inference_graph",
        "inductor_output_code",
        "inductor_post_grad_graph",
        "inductor_pre_grad_graph",
        "bwd_compilation_metrics",
        "create_symbol",
        "create_unbacked_symbol",
        "propagate_real_tensors",
        "guard_added",
        "guard_added_fast",
        "symbolic_shape_specialization",
        "dynamo_cpp_guards_str",
        "dynamo_guards",
        "compiled_autograd_graph",
        "graph_dump",
        "link",
        "exported_program",
        "artifact",
        "missing_fake_kernel",
        "mismatched_fake_kernel",
        "freeze_runtime_asserts",
        "expression_created",
        "unbacked_renamings",
        "dump_file",
    }
)


def default_parsers() -> list[Parser]:
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

    return [
        dynamo_start.PARSER,
        compilation_metrics.PARSER,
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
