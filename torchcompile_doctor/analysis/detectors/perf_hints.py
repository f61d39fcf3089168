"""Inductor's performance hints (TCD404; a fallback kernel TCD419/TCD420, each rule chosen by the hint's text) and
graphs DDP's optimizer split at gradient-bucket boundaries (TCD506): not breaks, but what the compiled code
costs."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from torchcompile_doctor.analysis.compiled_frames import compiled_frame
from torchcompile_doctor.analysis.detectors.detector import Derived, Detector
from torchcompile_doctor.analysis.index import AnalysisIndex
from torchcompile_doctor.analysis.worded_findings import finding_from_rule
from torchcompile_doctor.events.model import CompileId, DdpSplit, PerfHint
from torchcompile_doctor.model.findings import DdpSplitEvidence, DdpSplitImpact, OccurrencesImpact, PerfHintEvidence
from torchcompile_doctor.model.report import Finding, Location
from torchcompile_doctor.rules.binding import Binding, Params, RuleSet
from torchcompile_doctor.rules.facts import Facts


@dataclass(frozen=True, kw_only=True)
class HintFacts(Facts):
    message: str | None = None  # the hint, shortened for a title
    in_frame: str | None = None  # ` `f``: the compiled function that logged it
    in_function: str | None = None  # ` in `f``
    op: str | None = None  # a fallback kernel's operator


@dataclass(frozen=True, kw_only=True)
class DdpSplitFacts(Facts):
    subgraphs: int | None = None
    splits: int | None = None


PERF_HINT = Binding("perf_hint", Params, HintFacts, rules=None)  # each rule chosen by the hint's text
DDP_SPLIT = Binding("ddp_split", Params, DdpSplitFacts)

_SHORT = 100  # a hint's message in the title, at most


def perf_hints(index: AnalysisIndex, derived: Derived, rules: RuleSet[Params]) -> list[Finding]:
    """One finding per distinct hint message, placed at the user's line that calls the operator a fallback kernel
    names, else at the first compiled function that logged it (the user's line that called it when the function
    is torch's)."""
    groups: dict[str, list[PerfHint]] = defaultdict(list)
    for hint in index.log.perf_hints:
        groups[hint.message].append(hint)
    findings = []
    for message, hints in groups.items():
        compile_ids = {h.compile_id for h in hints if h.compile_id is not None}
        compiled = compiled_frame(index, compile_ids)
        at_call = _operator_line(index, _operator(hints[0].fallback_op), compile_ids)
        location = at_call or (compiled[0] if compiled else None)
        said = hints[0].worded or message  # never guard internals in a title
        short = said if len(said) <= _SHORT else said[: _SHORT - 3] + "..."
        findings.append(
            finding_from_rule(
                rules.for_text(message),
                location=location,
                facts=HintFacts(
                    message=short,
                    in_frame=f" `{compiled[1]}`" if compiled else "",
                    in_function=f" in `{compiled[1]}`" if compiled else "",
                    op=hints[0].fallback_op or "",
                ),
                count=len(hints),
                impact=OccurrencesImpact(occurrences=len(hints)),
                evidence=PerfHintEvidence(
                    compile_ids=sorted(str(c) for c in compile_ids), torch_text=message, logger=hints[0].logger
                ),
            )
        )
    return findings


def _operator(fallback_op: str | None) -> str | None:
    """The operator a fallback kernel runs: `topk` of `torch.ops.aten.topk.default`."""
    parts = (fallback_op or "").removeprefix("torch.ops.").split(".")
    return parts[1] if len(parts) > 1 else None


def _operator_line(index: AnalysisIndex, operator: str | None, compile_ids: set[CompileId]) -> Location | None:
    """The user's line that calls `operator` (`topk` for a fallback kernel's `aten.topk`), where exactly one
    line of the graphs the hint was logged for calls it."""
    lines = {
        (file, line, function)
        for graph in index.log.output_graphs
        if operator and graph.compile_id in compile_ids
        for file, line, function, called in graph.calls
        if called == operator and not index.code.is_library(file)
    }
    if len(lines) != 1:
        return None
    ((file, line, function),) = lines
    return index.location(file, line, index.function_name(file, function, line))


def ddp_splits(index: AnalysisIndex, derived: Derived, rules: RuleSet[Params]) -> list[Finding]:
    """One finding per compiled function whose graph DDP's optimizer split, with its most subgraphs."""
    rule = rules.only
    attempts: dict[CompileId, dict[int, list[DdpSplit]]] = defaultdict(lambda: defaultdict(list))
    for split in index.log.ddp_splits:
        if split.compile_id is not None:
            attempts[split.compile_id][split.attempt].append(split)
    groups: dict[tuple[Any, ...], list[tuple[CompileId, int]]] = defaultdict(list)
    for compile_id, by_attempt in sorted(attempts.items()):
        last = by_attempt[max(by_attempt)]  # an earlier attempt was restarted (e.g. by a graph break)
        groups[index.frame_key(compile_id)].append((compile_id, sum(1 for s in last if s.child is not None)))
    findings = []
    for (file, line, co_name), items in groups.items():
        name = index.function_name(file, co_name, line)
        subgraphs = max(children for _, children in items)
        findings.append(
            finding_from_rule(
                rule,
                location=index.location(file, line or 0, name),
                facts=DdpSplitFacts(function=name, subgraphs=subgraphs, splits=max(subgraphs - 1, 0)),
                count=len(items),
                impact=DdpSplitImpact(compiles=len(items), subgraphs=subgraphs),
                evidence=DdpSplitEvidence(
                    compile_ids=[str(c) for c, _ in items], subgraphs_per_compile={str(c): n for c, n in items}
                ),
            )
        )
    return findings


PERF_HINT_DETECTOR = Detector(PERF_HINT, perf_hints)
DDP_SPLIT_DETECTOR = Detector(DDP_SPLIT, ddp_splits)
