"""Warnings torch raises from its compile stack (the `warnings` module, not a logger), classified: the TF32
warning of torch/_inductor/compile_fx.py and the CUDA-graph fast-path warning of cudagraph_trees.py, in the
wordings of torch 2.11 to 2.15; any other warning from the compile stack is kept as torch said it. Warnings
from elsewhere (the user's code, other libraries) are not the doctor's business: None."""

from __future__ import annotations

import re

from torchcompile_doctor.events.messages.base import ShownWarning
from torchcompile_doctor.events.messages.cudagraphs import WARNING_KINDS
from torchcompile_doctor.events.model import TorchWarning, WarningKind

# torch's compile stack: where a warning about compiling comes from
COMPILE_STACK = re.compile(
    r"[/\\]torch[/\\](?:_dynamo|_inductor|_functorch|_subclasses|_higher_order_ops|_export|_prims|_refs|_decomp"
    r"|_logging|compiler|fx|utils[/\\]_sympy)[/\\]|[/\\]torch[/\\]_guards\.py$"
)
_KINDS = (
    (re.compile(r"TensorFloat32 tensor cores for float32 matrix multiplication available but not enabled"),
     WarningKind.TF32_DISABLED),
    *WARNING_KINDS,  # CUDA graphs' warnings: their words live with the cudagraphs messages
)  # fmt: skip


def torch_warning(shown: ShownWarning) -> TorchWarning | None:
    if COMPILE_STACK.search(shown.file) is None:
        return None
    kind = next((kind for pattern, kind in _KINDS if pattern.search(shown.message)), WarningKind.OTHER)
    return TorchWarning(kind, shown.category, shown.message.strip(), shown.file, shown.line)
