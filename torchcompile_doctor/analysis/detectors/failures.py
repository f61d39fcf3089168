"""Compile failures (TCD401): compiles that ended in an error (fullgraph=True breaks, backend errors),
grouped by where they failed and torch's first line; not the limit's, not a break's, not a benign skip.
A failure that is a graph break raised under fullgraph=True carries the origin and category the break
would have (the break rule its text matches)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from torchcompile_doctor.analysis.code import THIRD_PARTY, USER, without_doctor_frames
from torchcompile_doctor.analysis.findings import finding_from_rule
from torchcompile_doctor.analysis.index import AnalysisIndex
from torchcompile_doctor.events.model import CompilationMetrics
from torchcompile_doctor.model.findings import CompilesImpact, FailureEvidence
from torchcompile_doctor.model.report import Finding
from torchcompile_doctor.rules import Rule, rule_for_break, rule_for_text

# Compiles that end without a graph on purpose (nothing to trace, skipped files): not failures.
_BENIGN_FAIL_TYPES = {"SkipFrame", "SkipCodeRecursiveException", "ResetRequired", "RecompileLimitExceeded"}


def _is_failure(metrics: CompilationMetrics, break_ids: set) -> bool:
    return bool(
        metrics.fail_type
        and metrics.fail_type not in _BENIGN_FAIL_TYPES
        and metrics.compile_id not in break_ids
        and not metrics.hit_recompile_limit
    )


def compile_failures(index: AnalysisIndex, rules: Sequence[Rule]) -> list[Finding]:
    """TCD401 per failure; TCD408 when a backend raised (its own error, not a construct of the user's code)."""
    break_ids = {r.compile_id for r in index.log.graph_breaks}
    groups: dict[tuple, list[CompilationMetrics]] = defaultdict(list)
    for metrics in index.log.metrics:
        if _is_failure(metrics, break_ids):
            first_line = (metrics.fail_reason or metrics.fail_type or "").split("\n")[0].strip()
            groups[(metrics.fail_file, metrics.fail_line, first_line)].append(metrics)
    return [
        _failure_finding(index, rule_for_text(rules, items[0].fail_type or ""), file, line, gb_type, items)
        for (file, line, gb_type), items in groups.items()
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


def _failure_finding(
    index: AnalysisIndex, rule: Rule, file: str | None, line: int | None, gb_type: str, items: list[CompilationMetrics]
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
    as_break = rule_for_break(gb_id, gb_type, metrics.fail_reason or "", origin=origin, owner_file=file)
    backend = {"backend": metrics.failed_backend, "backend_error": metrics.backend_error or metrics.fail_type}
    return finding_from_rule(
        rule,
        location=index.location(file, line, function),
        facts={
            "gb_type": gb_type,
            "fullgraph_hint": fullgraph_hint,
            "raised_because": _raised_because(metrics),
            **backend,
        },
        gb_id=gb_id,
        gb_type=gb_type,
        category=as_break.category,
        origin=origin,
        count=len(items),
        torch_says=metrics.fail_explanation,
        impact=CompilesImpact(compiles=len(items)),
        evidence=FailureEvidence(
            compile_ids=sorted(str(m.compile_id) for m in items),
            fail_type=metrics.fail_type,
            torch_text=without_doctor_frames(metrics.fail_reason or "")[:2000],
        ),
    )
