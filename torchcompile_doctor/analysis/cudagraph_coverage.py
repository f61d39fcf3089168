"""Builds the report's `cudagraphs` (model/cudagraphs.py) from the index, once per report (`analyze`): which compiled
graphs ran under CUDA graphs and why the rest did not, from the events torch's `cudagraphs` log and warnings became
(events/messages/cudagraphs.py). A graph counts when CUDA graphs were asked for it: torch skipped it, partitioned it
with cudagraphable partitions, or ran it through a CUDA graph tree; a graph inductor partitioned only because CUDA
graphs were off (`partition includes all ops when cudagraphs is disabled`) does not."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from torchcompile_doctor.analysis.compiled_frames import compiled_frame
from torchcompile_doctor.analysis.index import AnalysisIndex
from torchcompile_doctor.events.model import (
    CompileId,
    CudagraphRunMode,
    CudagraphSkip,
    CudagraphSkipReason,
    NonCudagraphableOp,
    StackFrame,
    WarningKind,
)
from torchcompile_doctor.model.cudagraphs import (
    CudagraphCoverage,
    CudagraphGraph,
    CudagraphRerecording,
    CudagraphSkipSite,
    GraphCoverage,
)
from torchcompile_doctor.transforms.line_code import code_only

NO_ID = "?"  # a message torch logged without the compile it belongs to, in a run of several graphs


def _user_line(index: AnalysisIndex, stack: Sequence[StackFrame]) -> tuple[str | None, str | None]:
    frame = index.code.last_user_frame(stack)
    if frame is None:
        return None, None
    return f"{index.code.display(frame.file)}:{frame.line}", code_only(frame.code) or None  # prose quotes code


def _asked(index: AnalysisIndex) -> set[CompileId | None]:
    """The compiles CUDA graphs were asked for (None: a message without its compile)."""
    log = index.log
    asked: set[CompileId | None] = {skip.compile_id for skip in log.cudagraph_skips}
    asked |= {run.compile_id for run in log.cudagraph_runs}
    asked |= {rec.compile_id for rec in log.cudagraph_recordings}
    asked |= {p.compile_id for p in log.cudagraph_partitions if p.cudagraphable > 0}
    asked |= {op.compile_id for op in log.non_cudagraphable_ops if not op.cudagraphs_off}
    return asked


def _key(compile_id: CompileId | None, known: set[CompileId]) -> str:
    """A message's graph: its compile, or the only graph of the run when torch did not say which."""
    if compile_id is not None:
        return str(compile_id)
    return str(next(iter(known))) if len(known) == 1 else NO_ID


def cudagraph_coverage(index: AnalysisIndex) -> CudagraphCoverage | None:
    """How the run's compiled graphs ran under CUDA graphs; None when CUDA graphs were not asked for."""
    asked = _asked(index)
    if not asked:
        return None
    log = index.log
    known = {c for c in asked if c is not None}
    keys = sorted({_key(c, known) for c in asked}, key=lambda k: (k == NO_ID, CompileId.parse(k) or CompileId(0, 0)))
    calls: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for run in log.cudagraph_runs:
        calls[_key(run.compile_id, known)][str(run.mode)] += run.count
    skips: dict[str, set[str]] = defaultdict(set)
    for skip in log.cudagraph_skips:
        skips[_key(skip.compile_id, known)].add(str(skip.reason))
    cut: dict[str, set[str]] = defaultdict(set)  # ops left out of CUDA graphs, by cause
    for op in log.non_cudagraphable_ops:
        if not op.cudagraphs_off:
            cut[_key(op.compile_id, known)].add(op.cause)
    parts = {_key(p.compile_id, known): p for p in log.cudagraph_partitions}
    trees = {_key(r.compile_id, known) for r in log.cudagraph_recordings}
    graphs = []
    for key in keys:
        graph_calls = dict(calls.get(key, {}))
        partition = parts.get(key)
        partial = bool(cut.get(key)) or (partition is not None and partition.cudagraphable < partition.partitions)
        compiled = compiled_frame(index, [c for c in known if str(c) == key])
        graphs.append(
            CudagraphGraph(
                compile_id=key,
                function=compiled[1] if compiled else "",
                coverage=_coverage(graph_calls, skips.get(key, set()), partial, key in trees),
                calls=graph_calls,
                partitions=partition.partitions if partition else None,
                cudagraphable=partition.cudagraphable if partition else None,
                reasons=tuple(sorted(skips.get(key, set()) | cut.get(key, set()))),
            )
        )
    return _summed(index, tuple(graphs), known)


def _coverage(calls: dict[str, int], skips: set[str], cut: bool, recorded_tree: bool) -> str:
    """How a graph ran: skipped (or stopped at the re-record limit), cut into partitions some of which run outside
    CUDA graphs, recorded with calls that ran eagerly, recorded, or only warmed up (a new size at every call)."""
    if CudagraphSkipReason.RERECORD_LIMIT in skips:
        return GraphCoverage.RERECORD_LIMIT
    if skips:
        return GraphCoverage.SKIPPED
    if cut:
        return GraphCoverage.PARTIAL
    if calls.get(CudagraphRunMode.EAGER, 0):
        return GraphCoverage.EAGER_CALLS
    if calls.get(CudagraphRunMode.RECORD, 0) or calls.get(CudagraphRunMode.RERECORD, 0):
        return GraphCoverage.CUDA_GRAPH
    if calls.get(CudagraphRunMode.WARMUP, 0):
        return GraphCoverage.WARMUP_ONLY
    # torch logs the calls at debug level (`+cudagraphs`): without them, a recorded tree is all the log says
    return GraphCoverage.CUDA_GRAPH if recorded_tree else GraphCoverage.NOT_CALLED


def _summed(index: AnalysisIndex, graphs: tuple[CudagraphGraph, ...], known: set[CompileId]) -> CudagraphCoverage:
    log = index.log
    calls: dict[str, int] = defaultdict(int)
    for graph in graphs:
        for mode, count in graph.calls.items():
            calls[mode] += count
    limits = [s for s in log.cudagraph_skips if s.reason == CudagraphSkipReason.RERECORD_LIMIT]
    limit_warnings = [w for w in log.torch_warnings if w.kind == WarningKind.CUDAGRAPH_RERECORD_LIMIT]
    covered = sum(1 for graph in graphs if graph.covered)
    return CudagraphCoverage(
        graphs=graphs,
        covered=covered,
        share=covered / len(graphs),
        calls=dict(calls),
        skips=_skip_sites(index, known),
        rerecordings=_rerecordings(index, known),
        rerecord_limit=next((s.rerecord_limit for s in limits if s.rerecord_limit is not None), None),
        limit_hits=sum(s.count for s in limits) + sum(w.count for w in limit_warnings),
        sizes_recorded=len({r.size_key for r in log.cudagraph_recordings if r.size_key is not None}),
    )


def _skip_sites(index: AnalysisIndex, known: set[CompileId]) -> tuple[CudagraphSkipSite, ...]:
    """Each skip reason once per user line and torch's words, with the graphs it applies to and the ops named."""
    groups: dict[tuple[str, str | None, str], list[CudagraphSkip | NonCudagraphableOp]] = defaultdict(list)
    items: Iterable[CudagraphSkip | NonCudagraphableOp] = [
        *index.log.cudagraph_skips,
        *(op for op in index.log.non_cudagraphable_ops if not op.cudagraphs_off),
    ]
    for item in items:
        where, _ = _user_line(index, item.user_stack)
        reason = item.reason if isinstance(item, CudagraphSkip) else item.cause
        detail = item.detail if isinstance(item, CudagraphSkip) else item.reason
        groups[(str(reason), where, detail)].append(item)
    sites = []
    for (reason, where, detail), members in groups.items():
        _, source = _user_line(index, members[0].user_stack)
        ops = [m.op for m in members if isinstance(m, NonCudagraphableOp) and m.op]
        sites.append(
            CudagraphSkipSite(
                reason=reason,
                detail=detail,
                op=ops[0] if ops else None,
                where=where,
                source=source,
                graphs=tuple(sorted({_key(m.compile_id, known) for m in members})),
                count=sum(m.count if isinstance(m, CudagraphSkip) else 1 for m in members),
            )
        )
    return tuple(sites)


def _rerecordings(index: AnalysisIndex, known: set[CompileId]) -> tuple[CudagraphRerecording, ...]:
    found = []
    for run in index.log.cudagraph_runs:
        if run.mode != CudagraphRunMode.RERECORD:
            continue
        where, source = _user_line(index, run.user_stack)
        found.append(
            CudagraphRerecording(
                function=run.function,
                cause=run.reason or "torch did not log the cause (TORCH_LOGS=+cudagraphs logs it)",
                changed_input=run.changed_input,
                where=where,
                source=source,
                graph=_key(run.compile_id, known),
                count=run.count,
            )
        )
    return tuple(found)
