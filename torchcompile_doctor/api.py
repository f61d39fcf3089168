"""The Python API: `diagnose(fn, *args, **kwargs) -> Report` and `with expect(...):`.

Both capture in-process (torch's structured trace, as TORCH_TRACE writes it) and run the same
analysis and gate as the command line, through the pipeline.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from torchcompile_doctor import pipeline
from torchcompile_doctor.model.gate import GateCriteria, GateResult
from torchcompile_doctor.model.report import Report


def _is_compiled(fn: object) -> bool:
    import torch

    return isinstance(fn, torch._dynamo.eval_frame.OptimizedModule) or hasattr(fn, "_torchdynamo_orig_callable")


def diagnose(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Report:
    """Call `fn(*args, **kwargs)` once under torch.compile and return the doctor's report.

    An `fn` that is not compiled yet is compiled with `backend="eager"` (Dynamo alone decides graph
    breaks and recompiles, so the findings are the same as with inductor, seconds sooner); a compiled
    one runs as it is. Like `torch._dynamo.explain`, it resets Dynamo's caches first, so what was
    compiled before does not hide anything.
    """
    import torch

    compiled = fn if _is_compiled(fn) else torch.compile(fn, backend="eager")
    name = getattr(fn, "__qualname__", None) or type(fn).__qualname__
    torch._dynamo.reset()
    with pipeline.run_block(f"diagnose({name})") as block:
        compiled(*args, **kwargs)
    return block.run.report


@dataclass
class Expectation:
    """What `expect` yields: the gated report once the block has finished."""

    report: Report | None = None


def _gate_message(report: Report, gate: GateResult) -> str:
    lines = [f"torch.compile expectations failed ({', '.join(gate.criteria)}):"]
    lines += [f"  {violation}" for violation in gate.violations]
    for finding in report.findings:
        why = gate.reason_for(finding)
        if why is None:
            continue
        where = finding.user_frame or finding.location
        lines.append(f"  {finding.code} {where.where if where else '-'}: {finding.title} [{why}]")
        if where and where.source:
            lines.append(f"      {where.source}")
        if finding.fix:
            lines.append(f"      fix: {finding.fix.summary}")
    return "\n".join(lines)


@contextlib.contextmanager
def expect(
    *,
    max_graph_breaks: int | None = None,
    max_recompiles: int | None = None,
    fullgraph: bool = False,
    fail_on: str | None = None,
) -> Iterator[Expectation]:
    """`with expect(max_graph_breaks=0, max_recompiles=1): model(x)` raises AssertionError listing the
    findings when what torch.compile did inside the block fails the gate (as `doctor check` would).
    With no criterion, every finding but info fails. An exception from the block passes through."""
    criteria = GateCriteria(fullgraph, max_graph_breaks, max_recompiles, fail_on).or_default()
    expectation = Expectation()
    with pipeline.run_block("expect(...)") as block:
        yield expectation
    report = expectation.report = pipeline.gate(block.run, pipeline.GateOptions(criteria)).report
    if report.gate is not None and not report.gate.passed:
        raise AssertionError(_gate_message(report, report.gate))
