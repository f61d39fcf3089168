"""Whether the run trains: advice to run the compiled code under `torch.no_grad()` or `inference_mode()` is
wrong for a run that needs the backward. Built once by analyze.py into `Derived.training`.

Two signals, the first that speaks wins: AOT autograd compiled a backward (its lazy backward compile, the
`entire_backward_compile` span, runs when a backward first reaches the compiled graph), or the user's code
that the run went through calls `.backward()` (read with ast, never run: an eager backend compiles no backward).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from torchcompile_doctor.analysis.index import AnalysisIndex

# torch/_functorch/_aot_autograd/runtime_wrappers.py: the lazy backward compile, timed under this phase name
_BACKWARD_COMPILE_SPAN = "entire_backward_compile"


@dataclass(frozen=True)
class TrainingRun:
    """What says the run trains, in words for a finding (`AOT autograd compiled a backward for `Net.forward``)."""

    evidence: str


def training_run(index: AnalysisIndex) -> TrainingRun | None:
    """The run's training signal, or None where nothing says it computes gradients."""
    return _compiled_backward(index) or _backward_call(index)


def _compiled_backward(index: AnalysisIndex) -> TrainingRun | None:
    compile_ids = [s.compile_id for s in index.log.compile_spans if s.name == _BACKWARD_COMPILE_SPAN and s.phase == "B"]
    if not compile_ids:
        return None
    metrics = next((m for m in map(index.function_of, compile_ids) if m is not None and m.co_name), None)
    if metrics is None or metrics.co_filename is None:
        return TrainingRun("AOT autograd compiled a backward")
    name = index.function_name(metrics.co_filename, metrics.co_name or "?", metrics.co_firstlineno or 0)
    return TrainingRun(f"AOT autograd compiled a backward for `{name}`")


def _backward_call(index: AnalysisIndex) -> TrainingRun | None:
    """The first `.backward(...)` call in the user's files the run compiled or passed through."""
    for file in sorted(index.user_files()):
        tree = index.code.defs.tree(file)
        if tree is None:
            continue
        lines = sorted(
            node.lineno
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "backward"
        )
        if lines:
            return TrainingRun(f"your code calls `.backward()` at {index.code.display(file)}:{lines[0]}")
    return None
