"""Compile failures (TCD401): compiles that ended in an error (fullgraph=True breaks, backend errors),
grouped by where they failed and torch's first line; not the limit's, not a break's, not a benign skip.
A failure that is a graph break raised under fullgraph=True carries the origin and category the break
would have (the break rule its text matches)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from torchcompile_doctor.analysis.code import THIRD_PARTY, USER, without_doctor_frames
from torchcompile_doctor.analysis.detectors.breaks import GRAPH_BREAK
from torchcompile_doctor.analysis.detectors.detector import Derived, Detector
from torchcompile_doctor.analysis.index import AnalysisIndex
from torchcompile_doctor.analysis.worded_findings import finding_from_rule
from torchcompile_doctor.events.model import CompilationMetrics
from torchcompile_doctor.model.findings import CompilesImpact, FailureEvidence
from torchcompile_doctor.model.report import Finding
from torchcompile_doctor.rules.binding import Binding, Params, RuleSet
from torchcompile_doctor.rules.catalogue import BreakSignature
from torchcompile_doctor.rules.facts import Facts


@dataclass(frozen=True, kw_only=True)
class FailureFacts(Facts):
    gb_type: str | None = None  # torch's first line of the failure
    fullgraph_hint: str | None = None  # what to do when the failure is a break under fullgraph=True
    raised_because: str | None = None  # why it raised: a break under fullgraph=True, the backend, Dynamo itself
    backend: str | None = None  # a backend that raised: its name
    backend_error: str | None = None  # and what it raised


# TCD401 (a failure, the fallback) and TCD408 (a backend raised); a failure that is a break reads the break rules
COMPILE_FAILURE = Binding("compile_failure", Params, FailureFacts, rules=None, reads=(GRAPH_BREAK.detector,))

# Compiles that end without a graph on purpose (nothing to trace, skipped files): not failures.
_BENIGN_FAIL_TYPES = {"SkipFrame", "SkipCodeRecursiveException", "ResetRequired", "RecompileLimitExceeded"}


def _is_failure(metrics: CompilationMetrics, break_ids: set[Any]) -> bool:
    return bool(
        metrics.fail_type
        and metrics.fail_type not in _BENIGN_FAIL_TYPES
        and metrics.compile_id not in break_ids
        and not metrics.hit_recompile_limit
    )


def compile_failures(index: AnalysisIndex, derived: Derived, rules: RuleSet[Params]) -> list[Finding]:
    """TCD401 per failure; TCD408 when a backend raised (its own error, not a construct of the user's code)."""
    break_ids = {r.compile_id for r in index.log.graph_breaks}
    groups: dict[tuple[Any, ...], list[CompilationMetrics]] = defaultdict(list)
    for metrics in index.log.metrics:
        if _is_failure(metrics, break_ids):
            first_line = (metrics.fail_reason or metrics.fail_type or "").split("\n")[0].strip()
            groups[(metrics.fail_file, metrics.fail_line, first_line)].append(metrics)
    return [
        _failure_finding(index, rules, file, line, gb_type, items) for (file, line, gb_type), items in groups.items()
    ]


# why a compile raised instead of breaking the graph, by torch's exception type; any other type is Dynamo's own
# failure (InternalTorchDynamoError wraps it: PendingUnbackedSymbolNotFound, ...)
_RAISED_BECAUSE = {
    "Unsupported": "a graph break under `fullgraph=True`",
    "UserError": "a graph break under `fullgraph=True`",
    "BackendCompilerFailed": "the backend compiler failed",
}


def _raised_because(metrics: CompilationMetrics) -> str:
    fail_type = metrics.fail_type or "an error"
    if metrics.failed_backend:
        return _RAISED_BECAUSE["BackendCompilerFailed"]
    return _RAISED_BECAUSE.get(fail_type) or (
        f"an internal error of Dynamo, `{fail_type}`: Dynamo itself failed on this code, often under a config"
        " switch such as `capture_scalar_outputs`, not a construct it refuses and not `fullgraph=True`"
    )


DETECTOR = Detector(COMPILE_FAILURE, compile_failures)


def _failure_finding(
    index: AnalysisIndex,
    rules: RuleSet[Params],
    file: str | None,
    line: int | None,
    gb_type: str,
    items: list[CompilationMetrics],
) -> Finding:
    metrics = items[0]
    file = file or metrics.co_filename or "?"
    line = line or metrics.co_firstlineno or 0
    function = "?"
    if metrics.co_filename == file and metrics.co_name:
        function = index.code.user_function_name(file, metrics.co_name, metrics.co_firstlineno or line)
    fullgraph_hint = (
        "; if graph breaks are acceptable there, drop `fullgraph=True`" if metrics.fail_type == "Unsupported" else ""
    )
    known = index.registry.lookup(gb_type)
    gb_id = metrics.fail_gb_id or (known.gb_id if known else None)
    code = index.code
    origin = code.origin(file) or (THIRD_PARTY if code.is_library(file) else USER)
    as_break = rules.of(GRAPH_BREAK).for_break(
        BreakSignature(gb_id, gb_type, metrics.fail_reason or "", origin, owner_file=file)
    )
    facts = FailureFacts(
        gb_type=gb_type,
        fullgraph_hint=fullgraph_hint,
        raised_because=_raised_because(metrics),
        backend=metrics.failed_backend,
        backend_error=metrics.backend_error or metrics.fail_type,
    )
    return finding_from_rule(
        rules.for_text(metrics.fail_type or ""),
        location=index.location(file, line, function),
        facts=facts,
        gb_id=gb_id,
        gb_type=gb_type,
        category=as_break.category,
        origin=origin,
        count=len(items),
        torch_says=code.display_text(metrics.fail_explanation) if metrics.fail_explanation else None,
        impact=CompilesImpact(compiles=len(items)),
        evidence=FailureEvidence(
            compile_ids=sorted(str(m.compile_id) for m in items),
            fail_type=metrics.fail_type,
            torch_text=without_doctor_frames(metrics.fail_reason or "")[:2000],
        ),
    )
