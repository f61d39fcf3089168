"""CUDA graphs (`mode="reduce-overhead"`), as torch's `cudagraphs` logger and warnings tell them (TCD410-TCD417,
TCD421: the coverage of the compiled graphs, from the report's `cudagraphs`, as one finding):
graphs torch ran without CUDA graphs and why (each reason its rule), calls that missed the fast path because a
backward was pending, an output read after a later replay overwrote it, and one CUDA graph recorded per input
size. Each finding stands at the user's line when torch gives one (its `Found from` stack, the traceback),
else at the compiled function (the user's line that called it, when the function is torch's)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from torchcompile_doctor.analysis.code import USER
from torchcompile_doctor.analysis.compiled_frames import compiled_frame
from torchcompile_doctor.analysis.detectors.detector import Derived, Detector
from torchcompile_doctor.analysis.index import AnalysisIndex
from torchcompile_doctor.analysis.worded_findings import finding_from_rule
from torchcompile_doctor.events.model import (
    CompileId,
    CudagraphRun,
    CudagraphRunMode,
    CudagraphSkip,
    CudagraphSkipReason,
    NonCudagraphableOp,
    StackFrame,
    WarningKind,
)
from torchcompile_doctor.model.cudagraphs import COVERAGE_WORDS, CudagraphCoverage, GraphCoverage
from torchcompile_doctor.model.findings import (
    CudagraphCallsEvidence,
    CudagraphCoverageEvidence,
    CudagraphSizesEvidence,
    CudagraphSkipEvidence,
    OccurrencesImpact,
    OverwrittenEvidence,
)
from torchcompile_doctor.model.report import Finding, Location
from torchcompile_doctor.rules.binding import Binding, Params, RuleSet
from torchcompile_doctor.rules.catalogue import Rule
from torchcompile_doctor.rules.facts import Facts


@dataclass(frozen=True, kw_only=True)
class SkipFacts(Facts):
    detail: str | None = None  # torch's reason
    in_function: str | None = None
    partition: str | None = None  # a partition of the graph runs outside CUDA graphs


@dataclass(frozen=True, kw_only=True)
class PendingBackwardFacts(Facts):
    slow_calls: str | None = None
    calls_logged: int | None = None
    in_function: str | None = None
    training: str | None = None  # what says the run trains: its wording gives no `no_grad` advice


@dataclass(frozen=True, kw_only=True)
class OverwrittenFacts(Facts):
    made_by: str | None = None
    produced_at: str | None = None


@dataclass(frozen=True, kw_only=True)
class SizesFacts(Facts):
    sizes: int | None = None
    in_function: str | None = None
    replay_note: str | None = None


@dataclass(frozen=True)
class SizesParams(Params):
    never_replayed: str  # said when every size came once: nothing was recorded or replayed
    min_sizes: int = 4  # distinct input sizes recorded


CUDAGRAPH_SKIP = Binding("cudagraph_skip", Params, SkipFacts, rules=None)  # one rule per skip reason
CUDAGRAPH_PENDING_BACKWARD = Binding("cudagraph_pending_backward", Params, PendingBackwardFacts)
CUDAGRAPH_OVERWRITTEN = Binding("cudagraph_overwritten", Params, OverwrittenFacts)
CUDAGRAPH_SIZES = Binding("cudagraph_sizes", SizesParams, SizesFacts)


def _ids(compile_ids: Iterable[CompileId | None]) -> list[CompileId]:
    return sorted({c for c in compile_ids if c is not None})


def _place(
    index: AnalysisIndex, stack: Sequence[StackFrame], compile_ids: Iterable[CompileId]
) -> tuple[Location | None, str]:
    """The user's line on torch's stack, else the compiled function; and the function's name ("" unknown)."""
    frame = index.code.last_user_frame(stack)
    compiled = compiled_frame(index, compile_ids)
    name = compiled[1] if compiled else ""
    if frame is not None:
        function = index.code.qualified_name(frame.file, frame.function, frame.line)
        return index.location(frame.file, frame.line, function), name or function
    return (compiled[0] if compiled else None), name


def _in(name: str) -> str:
    return f" in `{name}`" if name else ""


def cudagraph_skips(index: AnalysisIndex, derived: Derived, rules: RuleSet[Params]) -> list[Finding]:
    """TCD410-TCD414: graphs run without CUDA graphs (torch's `skipping cudagraphs due to ...`), and partitions
    of a graph left out of CUDA graphs for a reason of the same kind (a CPU op), one finding per reason and line."""
    groups: dict[tuple[Any, ...], list[CudagraphSkip | NonCudagraphableOp]] = defaultdict(list)
    for skip in index.log.cudagraph_skips:
        if skip.reason == CudagraphSkipReason.RERECORD_LIMIT:  # TCD421's, with the re-recordings that led to it
            continue
        frame = index.code.last_user_frame(skip.user_stack)
        groups[(skip.reason, frame and (frame.file, frame.line), skip.detail)].append(skip)
    for op in index.log.non_cudagraphable_ops:
        if not op.cudagraphs_off:  # CUDA graphs asked for, and this op runs outside them
            frame = index.code.last_user_frame(op.user_stack)
            groups[(op.cause, frame and (frame.file, frame.line), op.reason)].append(op)
    return [_skip_finding(index, rules.for_cudagraph_reason(key[0]), key, items) for key, items in groups.items()]


def _skip_finding(index: AnalysisIndex, rule: Rule, key: tuple[Any, ...], items: list[Any]) -> Finding:
    reason, _, detail = key
    compile_ids = _ids(item.compile_id for item in items)
    location, function = _place(index, items[0].user_stack, compile_ids)
    ops = [f"{op.node}: {op.op or '?'} ({op.reason})" for op in items if isinstance(op, NonCudagraphableOp)]
    count = sum(getattr(item, "count", 1) for item in items)
    partition = f" (a partition of the graph runs outside CUDA graphs: {len(ops)} op(s))" if ops else ""
    return finding_from_rule(
        rule,
        location=location,
        facts=SkipFacts(detail=detail, in_function=_in(function), partition=partition),
        count=count,
        impact=OccurrencesImpact(occurrences=count),
        evidence=CudagraphSkipEvidence(
            compile_ids=[str(c) for c in compile_ids], reason=str(reason), torch_text=detail, ops=ops[:20]
        ),
    )


def _calls(runs: Iterable[CudagraphRun]) -> dict[str, int]:
    calls: dict[str, int] = defaultdict(int)
    for run in runs:
        calls[str(run.mode)] += run.count
    return dict(calls)


def cudagraph_pending_backward(index: AnalysisIndex, derived: Derived, rules: RuleSet[Params]) -> list[Finding]:
    """TCD415: torch warned that the CUDA-graph fast path is missed while a backward is pending (outputs that
    require grad, never backpropagated: inference without `no_grad`); the calls that then ran eagerly."""
    rule = rules.only
    warned = [w for w in index.log.torch_warnings if w.kind == WarningKind.CUDAGRAPH_PENDING_BACKWARD]
    if not warned:
        return []
    runs = index.log.cudagraph_runs
    calls = _calls(runs)
    compile_ids = _ids(run.compile_id for run in runs if run.mode == CudagraphRunMode.EAGER)
    location, function = _place(index, (), compile_ids)
    eager, total = calls.get(CudagraphRunMode.EAGER, 0), sum(calls.values())
    slow = f"{eager} call(s) ran eagerly instead of replaying the CUDA graph" if eager else "calls ran eagerly"
    facts = PendingBackwardFacts(
        slow_calls=slow,
        calls_logged=total,
        in_function=_in(function),
        training=derived.training.evidence if derived.training else None,
    )
    return [
        finding_from_rule(
            rule.worded_for(USER, facts),
            location=location,
            facts=facts,
            identity="cudagraphs",
            count=max(eager, 1),
            impact=OccurrencesImpact(occurrences=max(eager, 1)),
            evidence=CudagraphCallsEvidence(
                compile_ids=[str(c) for c in compile_ids], calls=calls, torch_text=warned[0].message
            ),
        )
    ]


def cudagraph_overwritten(index: AnalysisIndex, derived: Derived, rules: RuleSet[Params]) -> list[Finding]:
    """TCD416: torch's error for a CUDA graph's output read after a later replay overwrote it; at the user's line
    that read it, naming the line that made it."""
    rule = rules.only
    findings = []
    for overwritten in index.log.cudagraph_overwrites:
        producer = overwritten.producer
        produced_at = None
        if producer is not None:
            produced_at = f"{index.code.display(producer.file)}:{producer.line}"
        location, _ = _place(index, overwritten.stack or ((producer,) if producer else ()), ())
        made_by = f" (made at {produced_at}: `{producer.code}`)" if producer and producer.code else ""
        findings.append(
            finding_from_rule(
                rule,
                location=location,
                facts=OverwrittenFacts(made_by=made_by, produced_at=produced_at or "the compiled function"),
                identity="cudagraphs",
                evidence=OverwrittenEvidence(torch_text=overwritten.message, produced_at=produced_at),
            )
        )
    return findings


def cudagraph_sizes(index: AnalysisIndex, derived: Derived, rules: RuleSet[SizesParams]) -> list[Finding]:
    """TCD417: one CUDA graph tree recorded per distinct input size (dynamic shapes under reduce-overhead), or
    torch's warning that it saw many sizes."""
    rule = rules.only
    log = index.log
    sizes = list(dict.fromkeys(r.size_key for r in log.cudagraph_recordings if r.size_key is not None))
    warned = max((w.distinct_sizes for w in log.cudagraph_size_warnings), default=0)
    if len(sizes) < rules.params.min_sizes and not warned:
        return []
    calls = _calls(log.cudagraph_runs)
    compile_ids = _ids([*(r.compile_id for r in log.cudagraph_recordings), *(r.compile_id for r in log.cudagraph_runs)])
    location, function = _place(index, (), compile_ids)
    warmups = calls.get(CudagraphRunMode.WARMUP, 0)
    records = calls.get(CudagraphRunMode.RECORD, 0)
    # every size seen once: each call was the eager warm-up of its own size, nothing was recorded or replayed
    replay_note = rules.params.never_replayed if sizes and warmups >= len(sizes) and not records else ""
    count = max(len(sizes), warned)
    return [
        finding_from_rule(
            rule,
            location=location,
            facts=SizesFacts(sizes=count, in_function=_in(function), replay_note=replay_note),
            identity="cudagraphs",
            count=count,
            impact=OccurrencesImpact(occurrences=count),
            evidence=CudagraphSizesEvidence(
                compile_ids=[str(c) for c in compile_ids],
                sizes=sizes[:50],
                calls=calls,
                torch_text=f"observed {warned} distinct sizes" if warned else None,
            ),
        )
    ]


SKIP_DETECTOR = Detector(CUDAGRAPH_SKIP, cudagraph_skips)  # and partitions left out of CUDA graphs (a CPU op)
PENDING_BACKWARD_DETECTOR = Detector(CUDAGRAPH_PENDING_BACKWARD, cudagraph_pending_backward)
OVERWRITTEN_DETECTOR = Detector(CUDAGRAPH_OVERWRITTEN, cudagraph_overwritten)
SIZES_DETECTOR = Detector(CUDAGRAPH_SIZES, cudagraph_sizes)


@dataclass(frozen=True, kw_only=True)
class CoverageFacts(Facts):
    covered: int | None = None
    graphs: int | None = None
    in_function: str | None = None
    coverage_lines: str | None = None  # each graph and how it ran; each skip, re-recording and the limit
    fixes: str | None = None  # the fixes of the causes found, from the rule's params


@dataclass(frozen=True)
class CoverageParams(Params):
    # the fix for each cause (a skip reason, or how a graph ran), in the order they are offered
    fixes: Mapping[str, str] = field(default_factory=dict)


CUDAGRAPH_COVERAGE = Binding("cudagraph_coverage", CoverageParams, CoverageFacts)


def _causes(data: CudagraphCoverage) -> list[str]:
    """What kept graphs out of CUDA graphs, each once: skip reasons, then how graphs ran, then re-recording."""
    causes = [site.reason for site in data.skips]
    causes += [graph.coverage for graph in data.graphs if not graph.covered]
    if data.rerecordings or data.limit_hits:
        causes.append("rerecord")
    return list(dict.fromkeys(causes))


def _coverage_lines(data: CudagraphCoverage) -> str:
    lines = [
        f"graph {g.compile_id}{_in(g.function)}: {COVERAGE_WORDS[GraphCoverage(g.coverage)]}"
        + (f" ({_calls_said(g.calls)})" if g.calls else "")
        for g in data.graphs
    ]
    for site in data.skips:
        op = f" at op `{site.op}`" if site.op else ""
        at = f" at {site.where}" + (f" (`{site.source}`)" if site.source else "") if site.where else ""
        lines.append(f"torch: `{site.detail}`{op}{at}")
    for rerecord in data.rerecordings:
        changed = f" (input `{rerecord.changed_input}`" + (f", made at {rerecord.where})" if rerecord.where else ")")
        lines.append(
            f"re-recorded {rerecord.count} time(s): {rerecord.cause}{changed if rerecord.changed_input else ''}"
        )
    if data.limit_hits:
        limit = f" (={data.rerecord_limit})" if data.rerecord_limit is not None else ""
        lines.append(
            f"the re-record limit{limit} was reached {data.limit_hits} time(s): those calls run without CUDA graphs"
        )
    return "; ".join(lines)


def _calls_said(calls: dict[str, int]) -> str:
    return ", ".join(f"{count} {mode}" for mode, count in calls.items())


def cudagraph_coverage_finding(index: AnalysisIndex, derived: Derived, rules: RuleSet[CoverageParams]) -> list[Finding]:
    """TCD421: how much of the compiled work ran under CUDA graphs, per graph, and why the rest did not, as one
    finding: at the first skip's user line, else the first graph's compiled function."""
    data = derived.cudagraphs
    if data is None or data.fully_covered:
        return []
    rule, params = rules.only, rules.params
    stack = next((s.user_stack for s in index.log.cudagraph_skips if s.user_stack), ())
    compile_ids = [c for g in data.graphs if (c := CompileId.parse(g.compile_id)) is not None]
    location, function = _place(index, stack, compile_ids)
    fixes = [params.fixes[cause] for cause in _causes(data) if cause in params.fixes]
    return [
        finding_from_rule(
            rule,
            location=location,
            facts=CoverageFacts(
                covered=data.covered,
                graphs=len(data.graphs),
                in_function=_in(function),
                coverage_lines=_coverage_lines(data),
                fixes="; ".join(fixes) if fixes else params.fixes.get("other", ""),
            ),
            identity="cudagraph_coverage",
            count=len(data.graphs) - data.covered,
            impact=OccurrencesImpact(occurrences=max(len(data.graphs) - data.covered, 1)),
            evidence=CudagraphCoverageEvidence(
                compile_ids=[g.compile_id for g in data.graphs],
                covered=data.covered,
                coverage={g.compile_id: g.coverage for g in data.graphs},
                calls=data.calls,
                rerecordings=sum(r.count for r in data.rerecordings),
                rerecord_limit=data.rerecord_limit,
            ),
        )
    ]


COVERAGE_DETECTOR = Detector(CUDAGRAPH_COVERAGE, cudagraph_coverage_finding)
