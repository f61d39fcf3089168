"""Recompiles (TCD2xx, TCD301) and the recompile limit (TCD402): recompiles grouped by compiled
function, classified by their most common guard failure; a recompile of a value carried across a graph
break is worded by the carried-value rules, since the break is its cause."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import replace

from torchcompile_doctor.analysis.findings import finding_from_rule
from torchcompile_doctor.analysis.index import AnalysisIndex
from torchcompile_doctor.analysis.recompiles import GuardFailure, describe_changes, is_carried_value, parse_failure
from torchcompile_doctor.events.model import CompileId
from torchcompile_doctor.finding_data import LimitEvidence, LimitImpact, RecompileEvidence, RecompileImpact
from torchcompile_doctor.report import Finding
from torchcompile_doctor.rules import Rule, rule_for_carried, rule_for_recompile

GB_LINK = re.compile(r"/gb/gb(\d{4})\.html")
LIMIT_MARKERS = ("recompile limit exceeded", "cache limit exceeded", "recompile_limit", "cache_size_limit")
_RESUME = re.compile(r"^torch_dynamo_resume_in_(.+)_at_(\d+)$")
_AT_CALL = ("tensor_argument", "cast_at_call_site", "mark_dynamic")  # transforms whose fix edits the call

_Item = tuple[CompileId | None, GuardFailure | None, str]  # a recompile: its id, parsed failure, first line


def recompiles(index: AnalysisIndex, rules: Sequence[Rule]) -> list[Finding]:
    """One finding per compiled function that recompiled."""
    groups: dict[tuple, list[_Item]] = defaultdict(list)
    for record in index.log.recompiles:
        first_text = record.failures[0] if record.failures else ""
        groups[index.frame_key(record.compile_id)].append((record.compile_id, parse_failure(first_text), first_text))
    return [_recompile_finding(index, file, line, co_name, items) for (file, line, co_name), items in groups.items()]


def _main_failure(items: list[_Item]) -> tuple[str, GuardFailure | None, list[GuardFailure]]:
    """(the most common reason class, its first failure, all its failures)."""
    failures = [f for _, f, _ in items if f is not None]
    classes = Counter(f.reason_class for f in failures) or Counter({"other": 1})
    reason_class = classes.most_common(1)[0][0]
    of_class = [f for f in failures if f.reason_class == reason_class]
    return reason_class, (of_class[0] if of_class else None), of_class


def _fix_line(index: AnalysisIndex, rule: Rule, main: GuardFailure | None, call_sites: list) -> str | None:
    """Fixes for inputs (dtype, shape, int arguments) belong at the call; the others where the guard came from."""
    call_line = index.raw_line(call_sites[0].file, call_sites[0].line) if call_sites else None
    if rule.transform in _AT_CALL and call_line:
        return call_line
    if main is None:
        return None
    guard_line = index.raw_line(main.file, main.line) if main.file and main.line else None
    return guard_line or main.source


def _evidence(items: list[_Item], main: GuardFailure | None, compile_ids: set[CompileId]) -> RecompileEvidence:
    return RecompileEvidence(
        compile_ids=sorted(str(c) for c in compile_ids),
        guard_failures=[text.split("\n")[0] for _, _, text in items],
        guard_source=({"file": main.file, "line": main.line, "source": main.source} if main and main.file else None),
        hint=main.hint if main else None,
    )


def _recompile_finding(index: AnalysisIndex, file: str, line: int, co_name: str, items: list[_Item]) -> Finding:
    reason_class, main, of_class = _main_failure(items)
    name = index.function_name(file, co_name, line)
    compile_ids = {c for c, _, _ in items if c is not None}
    changes = describe_changes(of_class)
    call_sites = index.callers(file, line, compile_ids)
    user_frame = None
    if index.code.is_library(file) and call_sites:  # a library frame recompiles: where the user called in
        user_frame = index.location(call_sites[0].file, call_sites[0].line, call_sites[0].function)
    facts = _facts(name, reason_class, main, items, changes)
    if main is not None and is_carried_value(main.variable):
        # a value that crossed a graph break: the break is the cause, and the carried-value rule says so
        rule = rule_for_carried(main.reason_class)
        facts |= _carried_facts(index, main, co_name, file)
        changes = [c.replace(main.variable, "value carried across the break") for c in changes]
    else:
        rule = rule_for_recompile(reason_class, main.guard if main else "")
    finding = finding_from_rule(
        rule,
        location=index.location(file, line or 0, name),
        facts=facts,
        fix_line=_fix_line(index, rule, main, call_sites),
        reason_class=reason_class,
        count=len(items),
        user_frame=user_frame,
        changes=tuple(changes),
        impact=RecompileImpact(
            recompiles=len(items), compiles=len(compile_ids), compile_seconds=index.compile_seconds(compile_ids)
        ),
        evidence=_evidence(items, main, compile_ids),
    )
    dim = re.search(r"\[(\d+)\]", main.variable if main else "?")
    if rule.reason_class == "shape_or_rank" and dim and file != "?":  # the precise fix: that dim only
        mark = {"file": file, "line": line, "function": name, "variable": facts["variable"], "dim": int(dim.group(1))}
        assert finding.fix is not None
        return replace(finding, fix=replace(finding.fix, experiment={"mark_dynamic": mark}))
    return finding


def _facts(name: str, reason_class: str, main: GuardFailure | None, items: list[_Item], changes: list[str]) -> dict:
    variable = main.variable if main else "?"
    dim = re.search(r"\[(\d+)\]", variable)
    facts = {
        "function": name,
        "variable": variable,
        "values": "; ".join(changes) if changes else "a guard failed",
        "reason": main.guard if main else items[0][2].split("\n")[0],
        "attribute": variable.removeprefix("self.") if reason_class == "module_attribute" else None,
        "dim": dim.group(1) if dim else 0,
    }
    if main and main.guard.startswith("tensor '"):  # x.dtype, x.shape[0], x.stride()[0] -> x
        facts["variable"] = variable.split(".")[0].split("[")[0]
    facts["first_value"] = next(
        (f.old for _, f, _ in items if f is not None and f.reason_class == reason_class and f.old), None
    )
    return facts


def _carried_facts(index: AnalysisIndex, main: GuardFailure, co_name: str, file: str) -> dict:
    """The break a resume function's carried value crossed, and what about the value changed."""
    resume = _RESUME.match(co_name or "")
    return {
        "cause": f"{index.code.display(file)}:{resume.group(2)}" if resume else "the graph break before it",
        "carried": main.variable.split(".")[-1].split("[")[0],
    }


def recompile_limit(index: AnalysisIndex, rules: Sequence[Rule]) -> list[Finding]:
    """A function that hit the recompile limit: torch runs it eagerly from then on."""
    (rule,) = rules
    findings = []
    for metrics in index.log.metrics:
        reason = metrics.fail_reason or ""
        if not any(marker in reason.lower() for marker in LIMIT_MARKERS):
            continue
        function = index.function_of(metrics.compile_id)
        file, line, co_name = (
            (function.co_filename or "?", function.co_firstlineno or 0, function.co_name or "?")
            if function
            else ("?", 0, "?")
        )
        name = index.code.user_function_name(file, co_name, line) if function else co_name
        limit = re.search(r"currently set to (\d+)", reason)
        last = next(
            (r for r in reversed(index.log.recompiles) if r.compile_id == metrics.compile_id and r.failures), None
        )
        last_reason = parse_failure(last.failures[0]) if last else None
        ids = GB_LINK.findall(reason)
        findings.append(
            finding_from_rule(
                rule,
                location=index.location(file, line, name),
                facts={
                    "function": name,
                    "limit": limit.group(1) if limit else "recompile_limit",
                    "reason": last_reason.guard if last_reason else "see the recompile finding",
                },
                gb_id=f"GB{ids[0]}" if ids else "GB0039",
                gb_type=reason.split("\n")[0],
                reason_class=last_reason.reason_class if last_reason else None,
                impact=LimitImpact(limit=int(limit.group(1)) if limit else None),
                evidence=LimitEvidence(compile_ids=[str(metrics.compile_id)], torch_text=metrics.fail_reason),
            )
        )
    return findings
