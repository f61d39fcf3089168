"""Guard cost (TCD212-215), read from the guard frames (analysis/guard_frames.py builds them; `analyze` hands
them over):
frames whose cache entries check many Python values, measured guard overhead, module attributes
pinned to values that never changed, and Python lambda guards on values the user passes or reads
on their own lines (not Dynamo's internal identity checks, which the user cannot change)."""

from __future__ import annotations

from dataclasses import dataclass

from torchcompile_doctor.analysis.detectors.detector import Derived, Detector
from torchcompile_doctor.analysis.index import AnalysisIndex
from torchcompile_doctor.analysis.worded_findings import finding_from_rule, unique
from torchcompile_doctor.events.model import Guard
from torchcompile_doctor.model.findings import (
    CompileIdsEvidence,
    GuardCountEvidence,
    GuardCountImpact,
    GuardOverheadEvidence,
    GuardOverheadImpact,
    SteadyValuesEvidence,
    SteadyValuesImpact,
)
from torchcompile_doctor.model.report import Finding
from torchcompile_doctor.rules.binding import Binding, Params, RuleSet
from torchcompile_doctor.rules.facts import Facts


@dataclass(frozen=True, kw_only=True)
class HeavyFrameFacts(Facts):
    value_guards: int | None = None
    guards: int | None = None
    kinds: str | None = None
    top_line: str | None = None


@dataclass(frozen=True)
class HeavyFrameParams(Params):
    min_value_guards: int = 100  # guards on the user's Python values in one cache entry


@dataclass(frozen=True, kw_only=True)
class SteadyValuesFacts(Facts):
    count: int | None = None
    entries: int | None = None
    examples: str | None = None


@dataclass(frozen=True)
class SteadyValuesParams(Params):
    min_pins: int = 16  # module attributes pinned to values no cache entry saw change


@dataclass(frozen=True, kw_only=True)
class OverheadFacts(Facts):
    compiled_us: str | None = None
    skip_guards_us: str | None = None
    eager_us: str | None = None
    guard_us: str | None = None
    share: str | None = None


@dataclass(frozen=True)
class OverheadParams(Params):
    min_share: float = 0.1  # of a compiled call's time spent checking guards


@dataclass(frozen=True, kw_only=True)
class LambdaGuardFacts(Facts):
    expression: str | None = None


GUARD_HEAVY_FRAME = Binding("guard_heavy_frame", HeavyFrameParams, HeavyFrameFacts)
STEADY_MODULE_VALUES = Binding("steady_module_values", SteadyValuesParams, SteadyValuesFacts)
GUARD_OVERHEAD = Binding("guard_overhead", OverheadParams, OverheadFacts)
PYTHON_LAMBDA_GUARD = Binding("python_lambda_guard", Params, LambdaGuardFacts)


def guard_heavy_frames(index: AnalysisIndex, derived: Derived, rules: RuleSet[HeavyFrameParams]) -> list[Finding]:
    """A cache entry with at least `min_value_guards` guards on the user's Python values."""
    rule = rules.only
    findings = []
    for frame in derived.guard_frames:
        heaviest = max(frame.entries, key=lambda e: e.user_value_guards, default=None)
        if heaviest is None or heaviest.user_value_guards < rules.params.min_value_guards:
            continue
        kinds = ", ".join(f"{n} {k}" for k, n in list(heaviest.by_kind.items())[:3])
        findings.append(
            finding_from_rule(
                rule,
                location=index.location(frame.file, frame.line, frame.function),
                facts=HeavyFrameFacts(
                    function=frame.function,
                    value_guards=heaviest.user_value_guards,
                    guards=heaviest.tree_guards,
                    kinds=kinds,
                    top_line=next(iter(heaviest.by_source_line), "torch's own checks"),
                ),
                impact=GuardCountImpact(guards=heaviest.tree_guards, torch_guard_count=heaviest.guard_count),
                evidence=GuardCountEvidence(compile_ids=[heaviest.compile_id], by_kind=heaviest.by_kind),
            )
        )
    return unique(findings)


def steady_module_values(index: AnalysisIndex, derived: Derived, rules: RuleSet[SteadyValuesParams]) -> list[Finding]:
    """A frame with at least `min_pins` module attributes pinned to values no cache entry saw change."""
    rule = rules.only
    findings = []
    for frame in derived.guard_frames:
        steady = frame.steady_module_values
        if len(steady) < rules.params.min_pins:
            continue
        findings.append(
            finding_from_rule(
                rule,
                location=index.location(frame.file, frame.line, frame.function),
                facts=SteadyValuesFacts(
                    function=frame.function,
                    count=len(steady),
                    entries=len(frame.entries),
                    examples=", ".join(f"`{pin}`" for pin in steady[:3]),
                ),
                impact=SteadyValuesImpact(steady_module_values=len(steady)),
                evidence=SteadyValuesEvidence(pins=list(steady[:20])),
            )
        )
    return unique(findings)


def guard_overhead(index: AnalysisIndex, derived: Derived, rules: RuleSet[OverheadParams]) -> list[Finding]:
    """Guards measured to take at least `min_share` of a compiled call's time, beyond the spread of the rounds."""
    rule = rules.only
    findings = []
    for frame in derived.guard_frames:
        overhead = frame.overhead
        if not overhead or not overhead.compiled_us or overhead.skip_guards_us is None:
            continue
        if overhead.within_noise:  # the rounds' spread covers the difference: no cost measured
            continue
        guard_us = max(0.0, overhead.guard_us)
        share = guard_us / overhead.compiled_us
        if share < rules.params.min_share:
            continue
        facts = OverheadFacts(
            function=frame.function,
            compiled_us=f"{overhead.compiled_us:.1f}",
            skip_guards_us=f"{overhead.skip_guards_us:.1f}",
            eager_us=f"{overhead.eager_us:.1f}",
            guard_us=f"{guard_us:.1f}",
            share=f"{share:.0%}",
        )
        findings.append(
            finding_from_rule(
                rule,
                location=index.location(frame.file, frame.line, frame.function),
                facts=facts,
                impact=GuardOverheadImpact(guard_us_per_call=round(guard_us, 2), guard_share=round(share, 3)),
                evidence=GuardOverheadEvidence(overhead=overhead),
            )
        )
    return unique(findings)


def _is_shape_guard(guard: Guard) -> bool:
    """`2 <= x.size()[0]`: a dynamic-shape relation, the price of a dynamic dim, not a Python-value guard."""
    return guard.term.shape_relation


def _from_user(guard: Guard, user_files: set[str]) -> bool:
    """The user's own line, or an implicit guard on their inputs (no line); not library internals."""
    where_path = (guard.where or "").rpartition(":")[0]
    if where_path:
        return any(f.endswith(where_path) for f in user_files)
    return guard.term.on_local


def _user_can_act(guard: Guard) -> bool:
    """A guard on a value the user passes or reads (a float argument, a global), which they can turn into
    a tensor; not Dynamo's identity checks between modules, nor a value carried across a graph break
    (`not math.isnan(___stack0)`, whose cause is the break)."""
    term = guard.term
    if term.self_check:  # 2.11's `x == ___as_tensor(x).item()`: x made dynamic
        return False
    return not term.identity and term.on_user_value


def python_lambda_guards(index: AnalysisIndex, derived: Derived, rules: RuleSet[Params]) -> list[Finding]:
    """Top-level Python lambda guards from the user's code in a user frame: each is Python run per call."""
    rule = rules.only
    code = index.code
    user_files = {m.co_filename for m in index.log.metrics if m.co_filename and not code.is_library(m.co_filename)}
    findings = []
    for tree in index.log.guard_trees:
        for guard in tree.guards:
            if guard.kind != "LAMBDA_GUARD" or guard.depth > 1 or not _from_user(guard, user_files):
                continue
            if not _user_can_act(guard):
                continue
            if _is_shape_guard(guard):
                continue
            metrics = index.function_of(tree.compile_id)
            if metrics is None or not metrics.co_filename or code.is_library(metrics.co_filename):
                continue  # a library frame's Python guards are not the user's to change
            name = code.user_function_name(metrics.co_filename, metrics.co_name or "?", metrics.co_firstlineno or 0)
            location = index.location(metrics.co_filename, metrics.co_firstlineno or 0, name)
            findings.append(
                finding_from_rule(
                    rule,
                    location=location,
                    facts=LambdaGuardFacts(
                        function=name,
                        expression=guard.term.readable,
                        where=guard.where or location.where,  # implicit guards name no line
                    ),
                    evidence=CompileIdsEvidence(compile_ids=[str(tree.compile_id)]),
                )
            )
    return unique(findings)


HEAVY_FRAME_DETECTOR = Detector(GUARD_HEAVY_FRAME, guard_heavy_frames)
STEADY_VALUES_DETECTOR = Detector(STEADY_MODULE_VALUES, steady_module_values)
OVERHEAD_DETECTOR = Detector(GUARD_OVERHEAD, guard_overhead)
LAMBDA_GUARD_DETECTOR = Detector(PYTHON_LAMBDA_GUARD, python_lambda_guards)
