"""What every TORCH_TRACE parser is: the kinds of record it handles, whether it needs the record's payload, and
how it turns one `Record` into one event (or None, or NOT_AN_EVENT). The registry is the package's __init__."""

from __future__ import annotations

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
    # Whether a payload, by its end as written (reader.TAIL_BYTES of tab-indented lines), is one `parse` would find
    # nothing in: the reader then leaves it unread (no md5, no decoding), as the payload of a kind nobody reads.
    passes_over: Callable[[bytes], bool] | None = None


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
