"""Recompiles (TCD2xx, TCD301) and the recompile limit (TCD402): recompiles grouped by compiled
function (per session: `torch._dynamo.reset()` starts a new one), classified by the root cause that
every cache entry's guard failure supports (recompile_causes.py); a recompile of a value carried across
a graph break is worded by the carried-value rules, since the break is its cause; one whose entries
come from different call sites or layers within one call is worded as such (bounded, usually expected)."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from torchcompile_doctor.analysis.code import THIRD_PARTY, USER, without_doctor_frames
from torchcompile_doctor.analysis.detectors.detector import Derived, Detector
from torchcompile_doctor.analysis.function_defs import RESUME
from torchcompile_doctor.analysis.index import AnalysisIndex
from torchcompile_doctor.analysis.recompile_causes import (
    Cause,
    causes,
    counted_changes,
    describe_causes,
    unbounded_note,
)
from torchcompile_doctor.analysis.recompile_context import (
    DEFAULT_RECOMPILE_LIMIT,
    call_line_switches,
    enrich_failures,
    fresh_value_fix,
    grad_mode_note,
    held_across_break,
    hyperparameter_of,
    inside_one_call,
    kv_cache_note,
    library_call,
    limit_note,
    optimizer_line,
    passed_at_call,
    reuse_note,
    session_fingerprint,
    session_label,
    several_causes_note,
    skipped_caller_note,
    tied_inputs,
)
from torchcompile_doctor.analysis.worded_findings import finding_from_rule
from torchcompile_doctor.events.guard_failures import GuardFailure
from torchcompile_doctor.events.model import CompilationMetrics, CompileId, Recompile, StackFrame
from torchcompile_doctor.model.experiment import MarkDynamic
from torchcompile_doctor.model.findings import (
    GuardSource,
    LimitEvidence,
    LimitImpact,
    RecompileEvidence,
    RecompileImpact,
)
from torchcompile_doctor.model.report import Finding, Location, SourceLine
from torchcompile_doctor.rules.binding import Binding, Params, RuleSet
from torchcompile_doctor.rules.catalogue import Rule
from torchcompile_doctor.rules.fixes import RewriteFacts
from torchcompile_doctor.transforms.line_code import MARK_UNBACKED, marked_name
from torchcompile_doctor.transforms.sweeps import Sweep, inherent_sweep

_AT_CALL = ("tensor_argument", "cast_at_call_site", "mark_dynamic", "eager_call")  # transforms whose fix edits the call
_AT_FUNCTION = ("compile_region", "mark_growing_cache")  # transforms read from the compiled function itself


@dataclass(frozen=True, kw_only=True)
class RecompileFacts(RewriteFacts):
    """What a recompile's rule may say (and what its rewrite of the user's line reads: RewriteFacts)."""

    values: str | None = None  # the change lines, joined
    reason: str | None = None  # the guard that failed, without torch's comment
    compiles: int | None = None  # the entries compiled, the first one included
    seconds: float | None = None
    inside: str | None = None  # entries compiled within one call: how they differ
    reuse: str | None = None  # and whether later calls were seen reusing them
    optimizer_site: str | None = None  # an optimizer hyperparameter: where the optimizer is made
    cause: str | None = None  # a value carried across a break: the break
    carried: str | None = None  # and the value's name
    library_call: str | None = None  # a package's call that builds the inputs (transformers' generate)
    switched: str | None = None  # the changes between calls from different lines of the package
    switch_lines: str | None = None
    generate_call: str | None = None  # "yes": the package call is transformers' `generate()` (its measured advice)
    training: str | None = None  # what says the run trains (a grad-mode rule then speaks of train and eval)


@dataclass(frozen=True)
class RecompileParams(Params):
    """The situations a rule is chosen for, rather than by reason class."""

    inside_one_call: bool = False  # entries compiled within one call (layers, call sites)
    dynamic_passed: bool = False  # a shape recompile of a function compiled with dynamic=True
    kv_cache: bool = False  # the root cause is a KV cache's length


@dataclass(frozen=True, kw_only=True)
class LimitFacts(RewriteFacts):
    limit: str | None = None
    reason: str | None = None  # what keeps adding cache entries
    cause_fix: str | None = None  # the recompile finding's own fix
    sweep: str | None = None  # a sweep whose recompiles are inherent, in words (its items: `sweep_items`)


RECOMPILE = Binding("recompile", RecompileParams, RecompileFacts, rules=None)
RECOMPILE_LIMIT = Binding("recompile_limit", Params, LimitFacts, reads=(RECOMPILE.detector,))

_Key = tuple[int, str, int, str]  # (session, file, first line, co_name)


@dataclass(frozen=True)
class RecompileGroup:
    """The recompiles of one compiled function in one session, with their parsed failures."""

    key: _Key
    records: tuple[Recompile, ...]
    failures: tuple[tuple[GuardFailure, ...], ...]  # per record, one per existing cache entry
    parent_root: Cause | None = None  # a resume function kept apart: the root cause of the function it resumes

    @property
    def compile_ids(self) -> set[CompileId]:
        return {r.compile_id for r in self.records if r.compile_id is not None}


def recompile_groups(index: AnalysisIndex) -> list[RecompileGroup]:
    """The recompiles grouped per compiled function and session. A resume function (`f (after line N)`) is a
    function of its own with its own cache entries: its recompiles stay in its group, never merged into `f`'s;
    it only learns `f`'s root cause, to say where a change repeats it."""
    records: dict[_Key, list[Recompile]] = defaultdict(list)
    for record in index.log.recompiles:
        file, line, co_name = index.frame_key(record.compile_id)
        session = record.compile_id.session if record.compile_id else 0
        records[(session, file, line, co_name)].append(record)
    groups = {}
    for key, items in records.items():
        parsed = tuple(enrich_failures(index, record, record.guard_failures) for record in items)
        groups[key] = RecompileGroup(key, tuple(items), parsed)
    return [_with_parent_root(groups, group) for group in groups.values()]


def _with_parent_root(groups: dict[_Key, RecompileGroup], group: RecompileGroup) -> RecompileGroup:
    """A resume function's group with the root cause of the function it resumes, when that one recompiled."""
    session, file, _, co_name = group.key
    resume = RESUME.match(co_name)
    parent = next(
        (g for k, g in groups.items() if resume and k[0] == session and k[1] == file and k[3] == resume[1]), None
    )
    return replace(group, parent_root=_root(parent)) if parent is not None else group


def _same_change(one: Cause, other: Cause) -> bool:
    return one.reason_class == other.reason_class and one.values == other.values


def _root(group: RecompileGroup) -> Cause | None:
    found = causes([list(f) for f in group.failures])
    return found[0] if found else None


def recompiles(index: AnalysisIndex, derived: Derived, rules: RuleSet[RecompileParams]) -> list[Finding]:
    """One finding per compiled function (and session) that recompiled; a resume function whose inputs changed as
    its function's did, for a cause one cast at the call removes (a dtype), is counted in its function's finding."""
    training = derived.training.evidence if derived.training else None
    groups = recompile_groups(index)
    folded = _folded_resumes(groups)
    findings = {g.key: _recompile_finding(index, g, rules, training) for g in groups if g.key not in folded}
    for resume, parent in folded.items():
        group = next(g for g in groups if g.key == resume)
        findings[parent] = _with_resume_counted(index, findings[parent], group)
    return list(findings.values())


# causes a change at the call removes from a function and its resume after a break alike: one finding
_ONE_CAUSE_ACROSS_BREAKS = frozenset({"dtype"})


def _folded_resumes(groups: list[RecompileGroup]) -> dict[_Key, _Key]:
    """resume group -> its function's group, for a resume function that recompiled for its function's cause."""
    folded = {}
    for group in groups:
        session, file, _, co_name = group.key
        resume, root, parent_root = RESUME.match(co_name), _root(group), group.parent_root
        if resume is None or root is None or parent_root is None:
            continue
        if root.reason_class == parent_root.reason_class and root.reason_class in _ONE_CAUSE_ACROSS_BREAKS:
            parent = next((g.key for g in groups if g.key[:2] == (session, file) and g.key[3] == resume[1]), None)
            if parent is not None:
                folded[group.key] = parent
    return folded


def _with_resume_counted(index: AnalysisIndex, finding: Finding, resume: RecompileGroup) -> Finding:
    impact = finding.impact
    if not isinstance(impact, RecompileImpact):
        return finding
    ids = resume.compile_ids
    counted = RecompileImpact(
        recompiles=impact.recompiles + len(resume.records),
        compiles=impact.compiles + len(ids),
        compile_seconds=round(impact.compile_seconds + index.compile_seconds(ids), 3),
    )
    return replace(finding, impact=counted, count=finding.count + len(resume.records))


RECOMPILE_DETECTOR = Detector(RECOMPILE, recompiles)


@dataclass(frozen=True)
class _Special:
    """The rules a detector picks by situation rather than by reason class."""

    within: Rule | None  # entries compiled within one call (layers, call sites)
    dynamic: Rule | None  # a shape recompile of a function compiled with dynamic=True
    kv_cache: Rule | None  # the root cause is a KV cache's length

    @classmethod
    def of(cls, rules: RuleSet[RecompileParams]) -> _Special:
        return cls(
            within=next((r for r in rules.rules if rules.params_of(r).inside_one_call), None),
            dynamic=next((r for r in rules.rules if rules.params_of(r).dynamic_passed), None),
            kv_cache=next((r for r in rules.rules if rules.params_of(r).kv_cache), None),
        )


@dataclass(frozen=True)
class _Situation:
    """The rule chosen for a group and what it adds to the facts."""

    rule: Rule
    inside: str | None = None
    reuse: str | None = None
    hyperparameter: str | None = None
    optimizer_site: str | None = None
    cause: str | None = None
    carried: str | None = None  # the carried value's name: the carried-value rule speaks of the break


def _fix_line(
    index: AnalysisIndex,
    rule: Rule,
    main: GuardFailure | None,
    call_sites: list[Any],
    through: StackFrame | None,
    function: tuple[str, int],
) -> SourceLine | None:
    """Fixes for inputs (dtype, shape, int arguments) belong at the call, when the user's line passes them
    (not when a package the line calls builds them); an optimizer's hyperparameter where the user creates the
    optimizer; a rewrite of the compiled function at its first line, when that is the user's code; the others
    where the guard came from, when that is the user's code."""
    if "tensor_hyperparameter" in rule.transforms:
        found = optimizer_line(index)
        return found[0] if found else None
    if set(rule.transforms) & set(_AT_CALL) and through is not None:
        return None
    call_line = index.source_line(call_sites[0].file, call_sites[0].line) if call_sites else None
    if set(rule.transforms) & set(_AT_CALL) and call_line:
        return call_line
    if set(rule.transforms) & set(_AT_FUNCTION) and function[0] and not index.code.is_library(function[0]):
        return index.source_line(*function)
    if main is None or (main.file and index.code.is_library(main.file)):
        return None
    guard_line = index.source_line(main.file, main.line) if main.file and main.line else None
    return guard_line or (SourceLine(main.source) if main.source else None)


def _odd_call_first(
    index: AnalysisIndex, group: RecompileGroup, rule: Rule, call_sites: list[StackFrame]
) -> list[StackFrame]:
    """The call sites with the odd call first where the fix is a cast at the call: the cast belongs at the call
    that passed another dtype, and reads what that call passes."""
    odd = _odd_call(index, group) if {"cast_at_call_site", "eager_call"} & set(rule.transforms) else None
    if odd is None:
        return call_sites
    return [odd, *(c for c in call_sites if (c.file, c.line) != (odd.file, odd.line))]


def _odd_call(index: AnalysisIndex, group: RecompileGroup) -> StackFrame | None:
    """The user's line whose call recompiled (the first recompile's compile started under it): where an input
    differs from what the first compile saw, so where a cast to the first dtype belongs, not the first call."""
    for compile_id in sorted(group.compile_ids):
        frame = index.code.last_user_frame(index.starts.get(compile_id, ())[:-1])
        if frame is not None:
            return frame
    return None


def _evidence(group: RecompileGroup, main: GuardFailure | None) -> RecompileEvidence:
    return RecompileEvidence(
        compile_ids=sorted(str(c) for c in group.compile_ids),
        guard_failures=[text.split("\n")[0] for record in group.records for text in record.failures[:1]],
        guard_source=GuardSource(main.file, main.line, main.source) if main and main.file else None,
        hint=main.hint if main else None,
    )


def _dynamic_passed(index: AnalysisIndex, file: str, line: int) -> bool:
    """The user compiled this function with `dynamic=True` (the side channel names each torch.compile call)."""
    return any(b.dynamic is True and b.function_file == file and b.function_line == line for b in index.log.backends)


def _situation_rule(
    index: AnalysisIndex, group: RecompileGroup, root: Cause | None, special: _Special
) -> _Situation | None:
    """The rule of the program's situation, where one applies: entries compiled inside one call, a KV cache
    re-created with a new length, a shape recompile although `dynamic=True` was passed."""
    inside = inside_one_call(index, group.compile_ids, group.failures)
    if special.within is not None and inside and not (root and root.unbounded):
        if root is not None and root.reason_class == "object_id" and root.variable.endswith("__code__"):
            inside = f"one decorator wrapping different functions, reached from {inside}"  # its `func` differs
        reuse = reuse_note(index, group.compile_ids, index.compile_seconds(group.compile_ids))
        skipped = skipped_caller_note(index, group.compile_ids)
        return _Situation(special.within, inside=inside, reuse=f"{reuse} {skipped}" if skipped else reuse)
    if special.kv_cache is not None and root is not None and kv_cache_note([root]):
        return _Situation(special.kv_cache)
    shape = root is not None and root.reason_class == "shape_or_rank"
    if special.dynamic is not None and shape and _dynamic_passed(index, group.key[1], group.key[2]):
        return _Situation(special.dynamic)
    return None


def _choose_rule(
    index: AnalysisIndex, group: RecompileGroup, root: Cause | None, rules: RuleSet[RecompileParams]
) -> _Situation:
    """The rule for the group's root cause, and what it adds to the facts."""
    main = root.failures[0] if root else None
    if main is not None and (main.carried or _resumed_tensor(group, main)):
        # a value that crossed a graph break: the break is the cause, and the carried-value rule says so
        resume = RESUME.match(group.key[3] or "")
        return _Situation(
            rules.for_carried(main.reason_class),
            cause=f"{index.code.display(group.key[1])}:{resume.group(2)}" if resume else "the graph break before it",
            carried=main.variable.split(".")[-1].split("[")[0],
        )
    situation = _situation_rule(index, group, root, _Special.of(rules))
    if situation is not None:
        return situation
    rule = rules.for_recompile(root.reason_class if root else "other", main.guard if main else "")
    if "tensor_hyperparameter" in rule.transforms and main is not None:
        site = optimizer_line(index)
        return _Situation(
            rule, hyperparameter=hyperparameter_of(main.variable), optimizer_site=site[1] if site else None
        )
    return _Situation(rule)


def _resumed_tensor(group: RecompileGroup, main: GuardFailure) -> bool:
    """A resume function's tensor input changed shape: every input of the code after a break crossed the break
    (a local like `y` as much as a `___stack` value), and marking the caller's input dynamic does not reach it
    (checked: the resume function still recompiled once on `y` with `mark_dynamic(x, 0)` on its parent's input)."""
    return bool(RESUME.match(group.key[3])) and main.reason_class == "shape_or_rank"


def _recompile_finding(
    index: AnalysisIndex, group: RecompileGroup, rules: RuleSet[RecompileParams], training: str | None = None
) -> Finding:
    _, file, line, co_name = group.key
    found = causes([list(f) for f in group.failures])
    root = found[0] if found else None
    main = root.failures[0] if root else None
    name = index.function_name(file, co_name, line)
    changes = _echoes_marked(describe_causes(found), found, group.parent_root)
    call_sites = index.callers(file, line, group.compile_ids)
    through = library_call(index, group.compile_ids)  # a package's call builds the inputs: not the user's line
    user_frame = None
    if index.code.is_library(file) and call_sites:  # a library frame recompiles: where the user called in
        user_frame = index.location(call_sites[0].file, call_sites[0].line, call_sites[0].function)
    situation = _choose_rule(index, group, root, rules)
    rule, carried = situation.rule, situation.carried is not None
    call_sites = _odd_call_first(index, group, rule, call_sites)
    facts = replace(
        _facts(name, root, group, changes),
        inside=situation.inside,
        reuse=situation.reuse,
        hyperparameter=situation.hyperparameter,
        optimizer_site=situation.optimizer_site,
        cause=situation.cause,
        carried=situation.carried,
        seconds=index.compile_seconds(group.compile_ids),
        training=training,
    )
    facts = replace(facts, **_call_facts(index, group, facts, call_sites, through))
    if through is not None:
        facts, switches = _library_facts(index, group, through, facts)
        changes = _switches_marked(changes, found, switches)
    rule = _worded(rule, index.code.origin(file) or THIRD_PARTY, facts, through is not None)
    changes = _changes_in_words(index, main if carried else None, (file, line), changes, found)
    finding = finding_from_rule(
        rule,
        location=index.location(file, line or 0, name),
        facts=facts,
        fix_line=_fix_line(index, rule, main, call_sites, through, (file, line or 0)),
        reason_class=root.reason_class if root else "other",
        count=len(group.records),
        user_frame=user_frame,
        changes=tuple(changes),
        impact=RecompileImpact(
            recompiles=len(group.records),
            compiles=len(group.compile_ids),
            compile_seconds=index.compile_seconds(group.compile_ids),
        ),
        evidence=_evidence(group, main),
    )
    finding = _with_notes(index, finding, root, found, group)
    finding = _sweep_noted(index, finding, root, group)
    if carried and main is not None:
        finding = replace(finding, why=finding.why.replace(f"`{main.variable}`", "The value carried across the break"))
    finding = _with_cause_counts(index, finding, found, group.compile_ids, fix_per_cause=situation.inside is None)
    if rule.reason_class == "shape_or_rank" and through is None:  # the user's tensor: mark that dim only
        return _with_marking(finding, facts, main, (file, line, name))
    return finding


def _with_marking(
    finding: Finding, facts: RecompileFacts, main: GuardFailure | None, function: tuple[str, int, str]
) -> Finding:
    """A shape recompile of the user's tensor: torch's unbacked marking for a size already dynamic, the inputs
    tied to its length marked with it, or else the precise experiment (that one dimension dynamic)."""
    if facts.mark_call == MARK_UNBACKED:
        finding = _with_unbacked(finding, facts)
    if facts.tied:  # one input marked alone raises: the single-input experiment would too
        return _with_tied(finding, facts.tied, unbacked=facts.mark_call == MARK_UNBACKED)
    return _with_mark_dynamic(finding, main, function, facts.variable or "?")


def _call_facts(
    index: AnalysisIndex,
    group: RecompileGroup,
    facts: RecompileFacts,
    call_sites: list[StackFrame],
    through: StackFrame | None,
) -> dict[str, Any]:
    """What the user holds at the call line for the variable (the fix acts on it), the name `mark_dynamic` gets,
    the other inputs whose length the new entry ties to it (marked with it: `tied`, each (passed, name, dim)),
    and torch's unbacked marking for a dimension already dynamic but bounded to a range; not where a package's
    call builds the inputs."""
    _, file, line, co_name = group.key
    variable = facts.variable or "?"
    if through is not None:
        return {"passed": variable, "marked": variable}
    passed = passed_at_call(index, (file, line, co_name), variable, call_sites) or variable
    ranged = str(facts.first_value or "").startswith("between ")  # a dynamic size bounded to a range
    mark: dict[str, Any] = {"mark_call": MARK_UNBACKED} if ranged else {}
    tied = []
    if facts.dim is not None and variable.isidentifier():
        for other, dim in tied_inputs(index, group.compile_ids, variable, int(facts.dim)):
            held = passed_at_call(index, (file, line, co_name), other, call_sites)
            if held is None:  # an input the call line does not show: marking the others alone would raise
                return {"passed": passed, "marked": marked_name(passed, variable), "tied_hidden": True} | mark
            tied.append((held, marked_name(held, other), dim))
    return {"passed": passed, "marked": marked_name(passed, variable), "tied": tuple(tied) or None} | mark


def _with_unbacked(finding: Finding, facts: RecompileFacts) -> Finding:
    """A dimension already dynamic that torch bounded to a range (sizes 0 and 1 specialized, or a bound from a
    comparison): `mark_dynamic` is what made it dynamic and does nothing more; torch's own hint, unbacked, does."""
    if finding.fix is None:
        return finding
    summary = (
        f"`{facts.variable}`'s dimension {facts.dim} is already dynamic, but torch bounded it to a range"
        f" ({facts.first_value}) and compiles sizes outside it (0 and 1 are specialized) again: mark it unbacked"
        f" before the call (`{MARK_UNBACKED}({facts.marked}, {facts.dim})`, torch's own hint), with the inputs"
        " torch ties to it, so no size is specialized (checked on a served text classifier whose batches include"
        " single requests: 2 recompiles → 0, the same outputs)."
    )
    return replace(finding, fix=replace(finding.fix, summary=summary))


def _with_tied(finding: Finding, tied: tuple[tuple[str, str, int], ...], unbacked: bool) -> Finding:
    """The fix marks the inputs torch ties to the variable's length too; --try-fixes keeps `dynamic=True`."""
    if finding.fix is None:
        return finding
    names = " and ".join(f"`{name}`" for _, name, _ in tied)
    whose = "its" if len(tied) == 1 else "their"
    if unbacked:
        why = (
            f"torch ties {whose} length to it (checked: `tokens` of that classifier unbacked alone, 1 recompile left)."
        )
    else:
        why = (
            f"torch ties {whose} length to it, and one of them marked alone raises ConstraintViolationError where"
            " the code combines them (checked on an actor-critic update's log-probs, values and returns: all"
            " three marked, 0 recompiles)."
        )
    summary = f"{finding.fix.summary} Mark {names} too: {why}"
    return replace(finding, fix=replace(finding.fix, summary=summary))


def _with_cause_counts(
    index: AnalysisIndex, finding: Finding, found: list[Cause], compile_ids: set[CompileId], fix_per_cause: bool
) -> Finding:
    """How many recompiles each cause made, where they differ, and a function at the recompile limit."""
    several = several_causes_note(found, fix_per_cause)
    limit = limit_note(index, compile_ids)
    why = " ".join(part for part in (finding.why, several, limit[0] if limit else None) if part)
    title = f"{finding.title} (at the recompile limit: {limit[1]} entries)" if limit else finding.title
    fix = finding.fix
    if found and found[0].fresh and fix is not None:  # the rule's fix is for a value that repeats; this never does
        fix = replace(fix, summary=fresh_value_fix(found[0].variable))
    changes = tuple(counted_changes(finding.changes, found))
    return replace(finding, why=why, title=title, fix=fix, changes=changes)


def _with_mark_dynamic(
    finding: Finding, main: GuardFailure | None, function: tuple[str, int, str], variable: str
) -> Finding:
    """The precise experiment for a shape recompile: mark only the dimension that changed dynamic."""
    file, line, name = function
    if main is None or main.dim is None or file == "?" or finding.fix is None:
        return finding
    mark = MarkDynamic(file=file, line=line, function=name, variable=variable, dim=main.dim)
    return replace(finding, fix=replace(finding.fix, experiment=mark))


_Switches = tuple[dict[str, list[str]], dict[str, list[str]]]  # per variable: between lines, from the same line


def _library_facts(
    index: AnalysisIndex, group: RecompileGroup, through: StackFrame, facts: RecompileFacts
) -> tuple[RecompileFacts, _Switches]:
    """The package call the compiled function is reached through, and the changes that come from that
    package calling it from different lines (prefill, then decode)."""
    lines, switched, same = call_line_switches(index, group.records, group.failures)
    named = replace(
        facts,
        library_call=f"`{through.function}` ({index.code.display(through.file)}:{through.line})",
        switched="; ".join(f"`{v}` {', '.join(pairs)}" for v, pairs in switched.items()) or None,
        switch_lines=", ".join(lines) or None,
        # transformers' `generate()`: the measured advice on padding prompts holds for it, not for any package call
        generate_call="yes"
        if through.function == "generate" and index.code.package_name(through.file) == "transformers"
        else None,
    )
    return named, (switched, same)


def _switches_marked(changes: list[str], found: list[Cause], switches: _Switches) -> list[str]:
    """A change line says which of its steps came from calls on different lines of the package (expected)."""
    switched, same = switches
    marked = []
    for cause, line in zip(found, changes, strict=False):
        steps = switched.get(cause.variable)
        if steps and same.get(cause.variable):
            line += f" ({', '.join(steps)}: calls from different lines of the package, expected;"
            line += f" {', '.join(same[cause.variable])}: calls from the same line)"
        elif steps:
            line += " (only between calls from different lines of the package: expected)"
        marked.append(line)
    return marked + changes[len(found) :]


def _echoes_marked(changes: list[str], found: list[Cause], parent_root: Cause | None) -> list[str]:
    """A resume function's change that repeats the root cause of the function it resumes says so."""
    if parent_root is None:
        return changes
    return [
        f"{line} (as `{parent_root.variable}` before the break)" if _same_change(cause, parent_root) else line
        for cause, line in zip(found, changes, strict=False)
    ]


def _with_notes(
    index: AnalysisIndex, finding: Finding, root: Cause | None, found: list[Cause], group: RecompileGroup
) -> Finding:
    """The sentences that depend on more than one cause: which one is unbounded, a KV cache re-created
    with a new length, which way grad mode went, and the session of a run that called `torch._dynamo.reset()`."""
    session = group.key[0]
    why = finding.why
    note = unbounded_note(root, found[1:]) if root else None
    if note:
        why += " " + note
    if root is not None and root.reason_class == "grad_mode":
        why += " " + grad_mode_note(index, root, group.compile_ids)
    cache = kv_cache_note(found) if finding.code != "TCD303" else None  # TCD303 says it all
    fix = finding.fix
    if cache and fix is not None:
        why += " " + cache[0]
        fix = replace(fix, summary=f"{fix.summary} {cache[1]}")
    title = finding.title + session_label(index, session)
    return replace(
        finding, why=why, fix=fix, title=title, fingerprint=session_fingerprint(finding.fingerprint, session)
    )


def _facts(name: str, root: Cause | None, group: RecompileGroup, changes: list[str]) -> RecompileFacts:
    main = root.failures[0] if root else None
    variable = main.variable if main else "?"
    first_text = group.records[0].failures[0].split("\n")[0] if group.records and group.records[0].failures else ""
    return RecompileFacts(
        function=name,
        variable=(main.subject or (_shaped(variable) if main.reason_class == "shape_or_rank" else variable))
        if main
        else variable,
        values="; ".join(changes) if changes else "a guard failed",
        reason=main.worded_guard if main else first_text,  # no trailing comment, no L['']
        attribute=variable.removeprefix("self.") if root and root.reason_class == "module_attribute" else None,
        dim=str(main.dim) if main and main.dim is not None else 0,
        compiles=len({c.frame_compile_id for c in group.compile_ids} | {0}),  # the first entry too
        first_value=next((f.old for f in (root.failures if root else ()) if f.old), None),
    )


def _shaped(variable: str) -> str:
    """`tokens.shape[0]` -> `tokens`: the tensor whose dimension a symbolic-shape guard bounds."""
    match = re.fullmatch(r"(?P<tensor>.+)\.shape\[\d+\]", variable)
    return match["tensor"] if match else variable


def _carried_changes(index: AnalysisIndex, main: GuardFailure, at: tuple[str, int], changes: list[str]) -> list[str]:
    """The change lines of a resume function in the user's words: the carried value, or the object held across
    the break (`losses.append`) when that object was freed."""
    held = held_across_break(index.raw_line(*at)) if main.reason_class == "guarded_object_freed" else None
    words = f"{held} (held across the break)" if held else _carried_words(main.variable)
    return [c.replace(main.variable, words) for c in changes]


def _changes_in_words(
    index: AnalysisIndex, carried: GuardFailure | None, at: tuple[str, int], changes: list[str], found: list[Cause]
) -> list[str]:
    """The change lines with no guard internal: the value a resume function was handed (`carried`, when the rule is
    the carried-value one) as the break's value or the object held across it, then every cause's name in words."""
    if carried is not None and (carried.carried or carried.reason_class == "guarded_object_freed"):
        changes = _carried_changes(index, carried, at, changes)
    return _internals_worded(changes, found)


def _internals_worded(changes: list[str], found: list[Cause]) -> list[str]:
    """The change lines with no Dynamo internal left in a cause's name (a loop's range iterator or a value carried
    across the break in words, a builtin by its name)."""
    for cause in found:
        worded = cause.failures[0].worded_variable if cause.failures else cause.variable
        if worded != cause.variable:
            changes = [change.replace(cause.variable, worded) for change in changes]
    return changes


def _carried_words(variable: str) -> str:
    """`___stack0` -> the value carried across the break; `___stack0.shape[0]` -> shape[0] of that value."""
    carried = "value carried across the break"
    _, dot, attribute = variable.partition(".")
    return f"{attribute} of the {carried}" if dot else carried


def _group_of_frame(
    index: AnalysisIndex, groups: Mapping[_Key, RecompileGroup], compile_id: CompileId | None
) -> RecompileGroup | None:
    """The recompiles of the function `compile_id` belongs to, in its session."""
    if compile_id is None:
        return None
    return groups.get((compile_id.session, *index.frame_key(compile_id)))


def _worded(rule: Rule, origin: str, facts: RecompileFacts, through_library: bool) -> Rule:
    """The rule as it speaks of a package's call that builds the inputs, or of a training run (its wording that
    needs `training`: no advice to call it in one grad mode)."""
    if through_library:
        return rule.worded_for(origin, facts)
    if facts.training is not None and any("training" in w.needs for w in rule.wordings):
        return rule.worded_for(USER, facts)
    return rule


def _cause_fix(
    index: AnalysisIndex, group: RecompileGroup | None, rules: RuleSet[RecompileParams], training: str | None
) -> str:
    """The fix the recompile finding of the same function gives, for the limit finding to lead with."""
    if group is None:
        return "remove the cause of the recompiles"
    finding = _recompile_finding(index, group, rules, training)
    return finding.fix.summary.rstrip(".") if finding.fix else "remove the cause of the recompiles"


def recompile_limit(index: AnalysisIndex, derived: Derived, rules: RuleSet[Params]) -> list[Finding]:
    """A function that hit the recompile limit: torch runs it eagerly from then on."""
    rule = rules.only
    findings = []
    training = derived.training.evidence if derived.training else None
    groups = {group.key: group for group in recompile_groups(index)}  # built once: a long job hits the limit often
    # one function's root cause and fix, worked out once however often it hit the limit
    worked_out: dict[_Key | None, tuple[Cause | None, str]] = {}
    for metrics in index.log.metrics:
        if not metrics.hit_recompile_limit:
            continue
        function = index.function_of(metrics.compile_id)
        file, line, co_name = (
            (function.co_filename or "?", function.co_firstlineno or 0, function.co_name or "?")
            if function
            else ("?", 0, "?")
        )
        name = index.code.user_function_name(file, co_name, line) if function else co_name
        group = _group_of_frame(index, groups, metrics.compile_id)
        group_key = group.key if group else None
        if group_key not in worked_out:
            worked_out[group_key] = (
                _root(group) if group else None,
                _cause_fix(index, group, rules.of(RECOMPILE), training),
            )
        root, cause_fix = worked_out[group_key]
        location = index.location(file, line, name)
        facts = LimitFacts(
            function=name,
            limit=str(metrics.recompile_limit) if metrics.recompile_limit is not None else "recompile_limit",
            reason=_limit_reason(root),
            cause_fix=cause_fix,
            variable=root.variable if root else None,
        )
        worded, facts, fix_line = _as_sweep(index, rule, facts, _places(index, location, file, line), root, metrics)
        finding = finding_from_rule(
            worded,
            location=location,
            facts=facts,
            fix_line=fix_line,
            gb_id=metrics.fail_gb_id or "GB0039",
            gb_type=(metrics.fail_reason or "").split("\n")[0],
            reason_class=root.reason_class if root else None,
            impact=LimitImpact(limit=metrics.recompile_limit),
            evidence=LimitEvidence(
                compile_ids=[str(metrics.compile_id)],
                torch_text=without_doctor_frames(metrics.fail_reason) if metrics.fail_reason else None,
            ),
        )
        session = metrics.compile_id.session if metrics.compile_id else 0
        findings.append(
            replace(
                finding,
                title=finding.title + session_label(index, session),
                fingerprint=session_fingerprint(finding.fingerprint, session),
            )
        )
    return findings


def _places(index: AnalysisIndex, location: Location, file: str, line: int) -> list[tuple[str, int]]:
    """Where the compiled code's sweep may show: the finding's line, and each `torch.compile` call that compiled
    the code object (a user's class whose `forward` the finding names, compiled anew in a loop elsewhere)."""
    calls = [
        (b.file, b.line)
        for b in index.log.backends
        if b.file and b.line and b.function_file == file and b.function_line == line
    ]
    return list(dict.fromkeys([(location.file, location.line), *calls]))


def _as_sweep(
    index: AnalysisIndex,
    rule: Rule,
    facts: LimitFacts,
    places: list[tuple[str, int]],
    root: Cause | None,
    metrics: CompilationMetrics,
) -> tuple[Rule, LimitFacts, SourceLine | None]:
    """The rule, its facts and the line its rewrite stands at, for recompiles a sweep makes by design: the limit
    raised (or the caches reset per item) is the fix, and the setting that hides a cause is no experiment."""
    for file, line in places:
        source = index.source_line(file, line)
        sweep = _sweep(index, source, root, metrics.recompile_limit)
        if sweep is None:
            continue
        facts = replace(
            facts,
            sweep=sweep.words_in(Path(file).name if file != places[0][0] else None),
            sweep_items=sweep.items,
            sweep_loop=sweep.line if sweep.statement else None,
        )
        return replace(rule.worded_for(USER, facts), experiment=None), facts, source
    return rule, facts, None


# numbers a tensor or dynamic=True carries: a sweep over them keeps its cause's own fix
_NUMBERS = frozenset({"int_specialization", "float_specialization"})


def _sweep_noted(index: AnalysisIndex, finding: Finding, root: Cause | None, group: RecompileGroup) -> Finding:
    """Recompiles a sweep makes by design (one compile per item of a literal loop of distinct functions or
    models), more than the recompile limit allows: said so, the limit's fix first, the cause's after it."""
    _, file, line, _ = group.key
    if finding.location is None or finding.fix is None or (root is not None and root.reason_class in _NUMBERS):
        return finding
    places = _places(index, finding.location, file, line)
    for at_file, at_line in places:
        sweep = _sweep(index, index.source_line(at_file, at_line), root, None)
        if sweep is not None:
            words = sweep.words_in(Path(at_file).name if at_file != places[0][0] else None)
            why = f"{finding.why} These recompiles are a sweep's: {words}; each item compiles once by design."
            fix = (
                "the sweep passes the recompile limit: raise `torch._dynamo.config.recompile_limit` to its size, or "
                "call `torch.compiler.reset()` as each item starts (doctor fix measures both); where its items can "
                f"share one compile, {finding.fix.summary}"
            )
            return replace(finding, why=why, fix=replace(finding.fix, summary=fix))
    return finding


def _sweep(index: AnalysisIndex, source: SourceLine | None, root: Cause | None, limit: int | None) -> Sweep | None:
    """The sweep of the user's file whose items make the recompiles, when they are inherent and more than the
    limit (transforms/sweeps.py reads the file's syntax tree)."""
    if source is None or source.file is None or source.line is None or source.file_text is None:
        return None
    if index.code.origin(source.file) != USER:
        return None
    sweep = inherent_sweep(
        source.file_text, source.line, root.variable if root else None, root.reason_class if root else None
    )
    return sweep if sweep is not None and sweep.items > (DEFAULT_RECOMPILE_LIMIT if limit is None else limit) else None


def _limit_reason(root: Cause | None) -> str:
    if root is None:
        return "see the recompile finding"
    if root.unbounded:
        return f"`{root.variable}` takes a new value on every call ({' → '.join(root.values[:4])} …)"
    return f"`{root.failures[0].worded_guard}`"


LIMIT_DETECTOR = Detector(RECOMPILE_LIMIT, recompile_limit)
