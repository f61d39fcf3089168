"""EventLog -> Report: group records into findings, attach rules and fixes, rank."""

from __future__ import annotations

import hashlib
import re
import signal as signals
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace

from torchcompile_doctor import __version__
from torchcompile_doctor.analysis.code import CodeMap, SourceReader, read_source_file
from torchcompile_doctor.analysis.guards import GuardFrame, analyze_guards, readable
from torchcompile_doctor.analysis.ranking import rank_findings
from torchcompile_doctor.analysis.recompiles import GuardFailure, describe_changes, is_carried_value, parse_failure
from torchcompile_doctor.analysis.registry import GraphBreakRegistry, load_registry
from torchcompile_doctor.analysis.suppressions import ALL, suppressions_in
from torchcompile_doctor.analysis.suppressions import apply as apply_suppressions
from torchcompile_doctor.events.model import CompilationMetrics, CompileId, DdpSplit, EventLog, GraphBreak, StackFrame
from torchcompile_doctor.report import Finding, Fix, Location, Report, Summary
from torchcompile_doctor.rules import Rule, rule_for_break, rule_for_kind, rule_for_kind_code, rule_for_recompile
from torchcompile_doctor.rules.fixes import apply as apply_transform

_GB_LINK = re.compile(r"/gb/gb(\d{4})\.html")
_LIMIT_MARKERS = ("recompile limit exceeded", "cache limit exceeded", "recompile_limit", "cache_size_limit")
# Compiles that end without a graph on purpose (nothing to trace, skipped files): not failures.
_BENIGN_FAIL_TYPES = {"SkipFrame", "SkipCodeRecursiveException", "ResetRequired", "RecompileLimitExceeded"}


# torch/_dynamo/graph_break_hints.py's classes, in words.
_HINT_CLASS_WORDS = {
    "supportable": "supportable: Dynamo could learn to trace this",
    "user_error": "likely a user error that also fails in eager",
    "fundamental": "fundamental: Dynamo will not trace this; work around it",
    "dynamo_bug": "likely a Dynamo bug: report it to PyTorch",
    "difficult": "difficult to debug",
    "caused_by_earlier_break": "caused by an earlier graph break",
}


@dataclass(frozen=True)
class RunOutcome:
    """How the child process ended, as the parent saw it (None fields: not a live run)."""

    returncode: int | None = None
    signal: int | None = None
    timed_out: bool = False
    interrupted: bool = False
    timeout_s: float | None = None


@dataclass(frozen=True)
class AnalysisContext:
    target: str
    root: str  # the directory of the user's code
    outcome: RunOutcome = field(default_factory=RunOutcome)
    read_source: SourceReader = read_source_file
    registry: GraphBreakRegistry | None = None
    offline: bool = False  # re-reading kept logs (`doctor report`): the report says which GB registry it used


_POLYFILLS = "/torch/_dynamo/polyfills/"
GUARD_HEAVY = 100  # guards on the user's Python values (constants, ids, types) in one cache entry
GUARD_SHARE = 0.10  # measured guard time over the compiled call time
STEADY_MODULE_VALUES = 16  # module attributes pinned to values that never changed, in one frame


def _outside_polyfills(record: GraphBreak) -> GraphBreak:
    """A break inside Dynamo's polyfills (its Python stand-ins for builtins) belongs to the frame that
    called the polyfill: that is the code the user (or their library) wrote."""
    if _POLYFILLS not in record.file:
        return record
    frame = next((f for f in reversed(record.user_stack) if _POLYFILLS not in f.file), None)
    return replace(record, file=frame.file, line=frame.line) if frame else record


class _Template(dict):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _fill(template: str, facts: dict) -> str:
    return template.format_map(_Template({k: v for k, v in facts.items() if v is not None}))


_SHAPE_TERM = re.compile(r"\.(size|stride)\(\)\[\d+\]|\.storage_offset\(\)")


def _is_shape_guard(guard) -> bool:
    """`2 <= x.size()[0]`: a dynamic-shape relation, the price of a dynamic dim, not a Python-value guard."""
    return bool(_SHAPE_TERM.search(guard.expression))


def _fingerprint(code: str, display_file: str, function: str, source: str | None) -> str:
    text = f"{code}|{display_file}|{function}|{(source or '').strip()}"
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]


def finding_from_rule(
    rule: Rule,
    *,
    location: Location | None,
    facts: dict,
    fix_line: str | None = None,
    identity: str = "",
    **fields,
) -> Finding:
    """A finding worded by its rule's templates. `identity` stands in for the function in the fingerprint
    of a finding with no location (e.g. "launcher")."""
    facts = {**facts}
    if location is not None:
        facts.setdefault("where", location.where)
        facts.setdefault("source", location.source or "")
        facts.setdefault("function", location.function)
    before, after = apply_transform(rule.transform, fix_line, facts)
    display = location.display_file if location else ""
    function = location.function if location else identity
    return Finding(
        code=rule.code,
        rule_name=rule.name,
        kind=rule.kind,
        severity=rule.severity,
        title=_fill(rule.title, facts),
        location=location,
        why=_fill(rule.why, facts),
        fix=Fix(_fill(rule.fix, facts), before, after, experiment=rule.experiment),
        docs_url=rule.docs_url,
        fingerprint=_fingerprint(rule.code, display, function, location.source if location else None),
        **fields,
    )


class _Builder:
    def __init__(self, log: EventLog, context: AnalysisContext) -> None:
        self.log = log
        self.context = context
        roots = log.bootstrap[-1].library_roots if log.bootstrap else ()
        self.code = CodeMap(context.root, roots, context.read_source)
        self.registry = context.registry or load_registry()
        self.starts = {start.compile_id: start.stack for start in log.dynamo_starts}
        self.metrics_by_id: dict[CompileId, CompilationMetrics] = {}
        self.frame_metrics: dict[int, CompilationMetrics] = {}
        for metrics in log.metrics:
            if metrics.compile_id is None:
                continue
            self.metrics_by_id[metrics.compile_id] = metrics
            if metrics.co_name and metrics.compile_id.frame_id not in self.frame_metrics:
                self.frame_metrics[metrics.compile_id.frame_id] = metrics

    # -- shared helpers
    def location(self, file: str, line: int, function: str) -> Location:
        return self.code.location(file, line, function)

    def compile_seconds(self, ids: set[CompileId]) -> float:
        return round(sum(self.metrics_by_id[i].compile_time_s for i in ids if i in self.metrics_by_id), 3)

    def finding(self, rule: Rule, *, location: Location | None, facts: dict, **fields) -> Finding:
        return finding_from_rule(rule, location=location, facts=facts, **fields)

    # -- graph breaks, frame skips
    def graph_break_findings(self) -> list[Finding]:
        groups: dict[tuple[str, str, int], list[GraphBreak]] = defaultdict(list)
        for record in map(_outside_polyfills, self.log.graph_breaks):
            groups[(record.gb_type, record.file, record.line)].append(record)
        return [self._graph_break_finding(records) for records in groups.values()]

    def _graph_break_finding(self, records: list[GraphBreak]) -> Finding:
        first = _outside_polyfills(records[0])
        text = first.raw.split("\nTraceback (most recent call last):")[0]
        entry = self.registry.get(first.gb_id) or self.registry.lookup(first.gb_type, text)
        gb_id = first.gb_id or (entry.gb_id if entry else None)
        site_frame = next(
            (f for f in reversed(first.user_stack) if f.file == first.file and f.line == first.line), None
        )
        function = site_frame.function if site_frame else "?"
        in_library = self.code.is_library(first.file)
        user_frames = {self.code.last_user_frame(r.user_stack) for r in records} - {None}
        call_sites: list[str] = []
        for record in records:
            caller = self._call_site(record.user_stack, record.file, record.line, in_library)
            if caller and caller not in call_sites:
                call_sites.append(caller)
        compile_ids = {r.compile_id for r in records if r.compile_id is not None}
        skipped = any(r.frame_skipped for r in records)
        user_frame = None
        if in_library and user_frames:
            frame = sorted(user_frames, key=lambda f: (f.file, f.line))[0]
            user_frame = self.location(frame.file, frame.line, frame.function)
        location = self.location(first.file, first.line, self.code.user_function_name(first.file, function, first.line))
        third_party = self.code.is_third_party(first.file)
        rule = rule_for_break(gb_id, first.gb_type, text, third_party)
        # Inside library code the line to change is the user's call into it.
        change_at = user_frame or location
        facts = {
            "where": change_at.where,
            "source": change_at.source or "",
            "function": change_at.function,
            "site_source": location.source or "",
            "gb_type": first.gb_type,
            "library": location.display_file.split("/")[0] if in_library else None,
            "caller": user_frame.where if user_frame else (call_sites[0] if call_sites else location.where),
            "torch_explanation": first.explanation or (entry.explanation if entry else ""),
            "torch_hints": " ".join(first.hints or (entry.hints if entry else ())) or "see the GB page",
            "hint_class": _HINT_CLASS_WORDS.get(entry.hint_class if entry else None, "not classified by torch"),
        }
        recompiles_caused = self._recompiles_of_resume(function, first.file, first.line)
        impact = {
            "occurrences": len(records),
            "compiles": len(compile_ids),
            "recompiles_caused": recompiles_caused,
            "compile_seconds": self.compile_seconds(compile_ids),
        }
        evidence = {
            "compile_ids": sorted(str(c) for c in compile_ids),
            "secondary_gb_ids": sorted({g for r in records for g in r.secondary_gb_ids}),
            "hint_class": entry.hint_class if entry else None,
            "torch_text": text.strip()[:2000],
        }
        common = dict(
            location=location,
            facts=facts,
            fix_line=self._raw_line(change_at.file, change_at.line),
            gb_id=gb_id,
            gb_type=first.gb_type,
            category=rule.category,
            count=len(records),
            call_sites=tuple(call_sites),
            user_frame=user_frame,
            torch_says=facts["torch_explanation"] or None,
            impact=impact,
            evidence=evidence,
        )
        break_finding = self.finding(rule, **common)
        if not skipped:
            return break_finding
        facts["break_fix"] = break_finding.fix.summary if break_finding.fix else ""
        skip_rule = rule_for_kind("frame_skipped")
        frame = first.user_stack[-1] if first.user_stack else None
        skipped_function = self.code.user_function_name(frame.file, frame.function, frame.line) if frame else function
        facts["function"] = skipped_function
        finding = self.finding(skip_rule, **{**common, "facts": facts})
        return replace(
            finding,
            fix=Fix(
                finding.fix.summary, break_finding.fix.before, break_finding.fix.after, break_finding.fix.experiment
            ),
            why=finding.why + " " + break_finding.why,
        )

    def _raw_line(self, file: str, line: int) -> str | None:
        lines = self.code.lines(file)
        return lines[line - 1].rstrip("\n") if lines and 1 <= line <= len(lines) else None

    def _call_site(self, stack: tuple[StackFrame, ...], file: str, line: int, in_library: bool) -> str | None:
        if in_library:
            frame = self.code.last_user_frame(stack)
            return f"{self.code.display(frame.file)}:{frame.line}" if frame else None
        index = next(
            (i for i in range(len(stack) - 1, -1, -1) if stack[i].file == file and stack[i].line == line), None
        )
        if index is None:
            return None
        caller = next((f for f in reversed(stack[:index]) if not self.code.is_library(f.file)), None)
        return f"{self.code.display(caller.file)}:{caller.line}" if caller else None

    def _recompiles_of_resume(self, function: str, file: str, line: int) -> int:
        name = f"torch_dynamo_resume_in_{function}_at_{line}"
        frames = {m.compile_id.frame_id for m in self.log.metrics if m.compile_id and m.co_name == name}
        return sum(1 for r in self.log.recompiles if r.compile_id and r.compile_id.frame_id in frames)

    # -- recompiles and the recompile limit
    def _function_of(self, compile_id: CompileId | None) -> CompilationMetrics | None:
        if compile_id is None:
            return None
        metrics = self.metrics_by_id.get(compile_id)
        if metrics is not None and metrics.co_name:
            return metrics
        return self.frame_metrics.get(compile_id.frame_id)

    def recompile_findings(self) -> list[Finding]:
        groups: dict[tuple, list[tuple[CompileId | None, GuardFailure | None, str]]] = defaultdict(list)
        for record in self.log.recompiles:
            metrics = self._function_of(record.compile_id)
            key = (metrics.co_filename, metrics.co_firstlineno, metrics.co_name) if metrics else ("?", 0, "?")
            first_text = record.failures[0] if record.failures else ""
            groups[key].append((record.compile_id, parse_failure(first_text), first_text))
        findings = []
        for (file, line, co_name), items in groups.items():
            failures = [f for _, f, _ in items if f is not None]
            classes = Counter(f.reason_class for f in failures) or Counter({"other": 1})
            reason_class = classes.most_common(1)[0][0]
            main = next((f for f in failures if f.reason_class == reason_class), None)
            name = self.code.user_function_name(file, co_name, line or 0) if file != "?" else co_name
            location = self.location(file, line or 0, name)
            rule = rule_for_recompile(reason_class, main.guard if main else "")
            compile_ids = {c for c, _, _ in items if c is not None}
            changes = describe_changes([f for f in failures if f.reason_class == reason_class])
            call_sites = self._callers(file, line, compile_ids)
            call_line = self._raw_line(call_sites[0].file, call_sites[0].line) if call_sites else None
            user_frame = None
            if self.code.is_library(file) and call_sites:  # a library frame recompiles: where the user called in
                user_frame = self.location(call_sites[0].file, call_sites[0].line, call_sites[0].function)
            guard_line = None
            if main and main.file and main.line:
                guard_line = self._raw_line(main.file, main.line)
            variable = main.variable if main else "?"
            index = re.search(r"\[(\d+)\]", variable)
            facts = {
                "function": name,
                "variable": variable,
                "values": "; ".join(changes) if changes else "a guard failed",
                "reason": main.guard if main else items[0][2].split("\n")[0],
                "attribute": variable.removeprefix("self.") if reason_class == "module_attribute" else None,
                "dim": index.group(1) if index else 0,
            }
            if main and main.guard.startswith("tensor '"):  # x.dtype, x.shape[0], x.stride()[0] -> x
                facts["variable"] = variable.split(".")[0].split("[")[0]
            first_value = next((f.old for f in failures if f.reason_class == reason_class and f.old), None)
            facts["first_value"] = first_value
            # Fixes for inputs (dtype, shape, int arguments) belong at the call; the others where the guard came from.
            at_call = rule.transform in ("tensor_argument", "cast_at_call_site", "mark_dynamic")
            finding = self.finding(
                rule,
                location=location,
                facts=facts,
                fix_line=(call_line if at_call else None) or guard_line or (main.source if main else None),
                reason_class=reason_class,
                count=len(items),
                user_frame=user_frame,
                changes=tuple(changes),
                impact={
                    "recompiles": len(items),
                    "compiles": len(compile_ids),
                    "compile_seconds": self.compile_seconds(compile_ids),
                },
                evidence={
                    "compile_ids": sorted(str(c) for c in compile_ids),
                    "guard_failures": [text.split("\n")[0] for _, _, text in items],
                    "guard_source": (
                        {"file": main.file, "line": main.line, "source": main.source} if main and main.file else None
                    ),
                    "hint": main.hint if main else None,
                },
            )
            if main is not None and is_carried_value(main.variable):
                finding = replace(finding, **self._knock_on(finding, main, co_name, file))
            elif reason_class == "shape_or_rank" and index and file != "?":  # the precise fix: that dim only
                mark = {
                    "file": file,
                    "line": line,
                    "function": name,
                    "variable": facts["variable"],
                    "dim": int(index.group(1)),
                }
                finding = replace(finding, fix=replace(finding.fix, experiment={"mark_dynamic": mark}))
            findings.append(finding)
        return findings

    def _knock_on(self, finding: Finding, main: GuardFailure, co_name: str, file: str) -> dict:
        """A resume function guarded on a value that crossed a graph break: the break is the cause."""
        resume = re.match(r"^torch_dynamo_resume_in_(.+)_at_(\d+)$", co_name or "")
        cause = f"{self.code.display(file)}:{resume.group(2)}" if resume else "the graph break before it"
        changes = tuple(c.replace(main.variable, "value carried across the break") for c in finding.changes)
        experiment = None
        if main.reason_class in ("int_specialization", "float_specialization"):
            experiment = {"config": {"capture_scalar_outputs": True}}  # what removes the break that made it
            why = (
                f"A Python number computed before the graph break at {cause} (an `.item()`/`.tolist()` value) is "
                "passed into the resumed code as a constant, so each new value compiles it again."
            )
            fix = (
                f"fix the graph break at {cause}: keep the value a tensor (no `.item()` inside the compiled code) "
                "or set `torch._dynamo.config.capture_scalar_outputs = True`; this recompile then disappears."
            )
        else:
            why = (
                f"A tensor produced before the graph break at {cause} enters the resumed code with a different "
                f"{main.variable.split('.')[-1].split('[')[0]} each time (e.g. a data-dependent size), so the resumed "
                "code compiles again."
            )
            fix = (
                f"fix the graph break at {cause}; without it the tensor stays inside one graph "
                "and this recompile disappears."
            )
        return {"why": why, "fix": Fix(fix, experiment=experiment), "changes": changes}

    def _callers(self, file: str, line: int, compile_ids: set[CompileId]) -> list[StackFrame]:
        """The user's lines that called a compiled frame: recorded by the bootstrap for compiled plain
        functions, else from dynamo_start stacks (which leave out a plain function's direct caller)."""
        recorded = [
            StackFrame(c.file, c.line, c.caller)
            for c in self.log.call_sites
            if c.function_file == file and c.function_line == line and not self.code.is_library(c.file)
        ]
        if recorded:
            return recorded
        callers: list[StackFrame] = []
        for compile_id in sorted(compile_ids):
            stack = self.starts.get(compile_id, ())
            frame = self.code.last_user_frame(stack[:-1])
            if frame is not None and frame not in callers:
                callers.append(frame)
        return callers

    def limit_findings(self) -> list[Finding]:
        findings = []
        rule = rule_for_kind("recompile_limit")
        for metrics in self.log.metrics:
            reason = (metrics.fail_reason or "").lower()
            if not any(marker in reason for marker in _LIMIT_MARKERS):
                continue
            function = self._function_of(metrics.compile_id)
            file, line, co_name = (
                (function.co_filename, function.co_firstlineno or 0, function.co_name) if function else ("?", 0, "?")
            )
            name = self.code.user_function_name(file, co_name, line) if function else co_name
            limit = re.search(r"currently set to (\d+)", metrics.fail_reason or "")
            last = next(
                (r for r in reversed(self.log.recompiles) if r.compile_id == metrics.compile_id and r.failures), None
            )
            last_reason = parse_failure(last.failures[0]) if last else None
            ids = _GB_LINK.findall(metrics.fail_reason or "")
            findings.append(
                self.finding(
                    rule,
                    location=self.location(file, line, name),
                    facts={
                        "function": name,
                        "limit": limit.group(1) if limit else "recompile_limit",
                        "reason": last_reason.guard if last_reason else "see the recompile finding",
                    },
                    gb_id=f"GB{ids[0]}" if ids else "GB0039",
                    gb_type=(metrics.fail_reason or "").split("\n")[0],
                    reason_class=last_reason.reason_class if last_reason else None,
                    impact={"limit": int(limit.group(1)) if limit else None},
                    evidence={"compile_ids": [str(metrics.compile_id)], "torch_text": metrics.fail_reason},
                )
            )
        return findings

    # -- compile failures (fullgraph=True, backend errors)
    def failure_findings(self) -> list[Finding]:
        break_ids = {r.compile_id for r in self.log.graph_breaks}
        rule = rule_for_kind("compile_failure")
        groups: dict[tuple, list[CompilationMetrics]] = defaultdict(list)
        for metrics in self.log.metrics:
            reason = (metrics.fail_reason or "").lower()
            if (
                not metrics.fail_type
                or metrics.fail_type in _BENIGN_FAIL_TYPES
                or metrics.compile_id in break_ids
                or any(marker in reason for marker in _LIMIT_MARKERS)
            ):
                continue
            first_line = (metrics.fail_reason or metrics.fail_type).split("\n")[0].strip()
            groups[(metrics.fail_file, metrics.fail_line, first_line)].append(metrics)
        findings = []
        for (file, line, gb_type), items in groups.items():
            metrics = items[0]
            file = file or metrics.co_filename or "?"
            line = line or metrics.co_firstlineno or 0
            function = self._enclosing_function(file, line, metrics)
            ids = _GB_LINK.findall(metrics.fail_reason or "")
            explanation = re.search(r"Explanation: (.+)", metrics.fail_reason or "")
            fullgraph_hint = (
                "; if graph breaks are acceptable there, drop `fullgraph=True`"
                if metrics.fail_type == "Unsupported"
                else ""
            )
            findings.append(
                self.finding(
                    rule,
                    location=self.location(file, line, function),
                    facts={"gb_type": gb_type, "fullgraph_hint": fullgraph_hint},
                    gb_id=f"GB{ids[0]}"
                    if ids
                    else (self.registry.lookup(gb_type).gb_id if self.registry.lookup(gb_type) else None),
                    gb_type=gb_type,
                    count=len(items),
                    torch_says=explanation.group(1) if explanation else None,
                    impact={"compiles": len(items)},
                    evidence={
                        "compile_ids": sorted(str(m.compile_id) for m in items),
                        "fail_type": metrics.fail_type,
                        "torch_text": (metrics.fail_reason or "")[:2000],
                    },
                )
            )
        return findings

    def _enclosing_function(self, file: str, line: int, metrics: CompilationMetrics) -> str:
        if metrics.co_filename == file and metrics.co_name:
            return self.code.user_function_name(file, metrics.co_name, metrics.co_firstlineno or line)
        return "?"

    # -- DDP's optimizer: graphs split at gradient-bucket boundaries (not graph breaks)
    def ddp_split_findings(self) -> list[Finding]:
        attempts: dict[CompileId, dict[int, list[DdpSplit]]] = defaultdict(lambda: defaultdict(list))
        for split in self.log.ddp_splits:
            if split.compile_id is not None:
                attempts[split.compile_id][split.attempt].append(split)
        groups: dict[tuple, list[tuple[CompileId, int]]] = defaultdict(list)
        for compile_id, by_attempt in sorted(attempts.items()):
            last = by_attempt[max(by_attempt)]  # an earlier attempt was restarted (e.g. by a graph break)
            metrics = self._function_of(compile_id)
            key = (metrics.co_filename, metrics.co_firstlineno, metrics.co_name) if metrics else ("?", 0, "?")
            groups[key].append((compile_id, sum(1 for s in last if s.child is not None)))
        rule = rule_for_kind("ddp_split")
        findings = []
        for (file, line, co_name), items in groups.items():
            name = self.code.user_function_name(file, co_name, line or 0) if file != "?" else co_name
            subgraphs = max(children for _, children in items)
            findings.append(
                self.finding(
                    rule,
                    location=self.location(file, line or 0, name),
                    facts={"function": name, "subgraphs": subgraphs, "splits": max(subgraphs - 1, 0)},
                    count=len(items),
                    impact={"compiles": len(items), "subgraphs": subgraphs},
                    evidence={
                        "compile_ids": [str(c) for c, _ in items],
                        "subgraphs_per_compile": {str(c): n for c, n in items},
                    },
                )
            )
        return findings

    # -- perf hints
    def perf_hint_findings(self) -> list[Finding]:
        rule = rule_for_kind("perf_hint")
        groups: dict[str, list] = defaultdict(list)
        for hint in self.log.perf_hints:
            groups[hint.message].append(hint)
        findings = []
        for message, hints in groups.items():
            compile_ids = {h.compile_id for h in hints if h.compile_id is not None}
            metrics = next((self._function_of(c) for c in sorted(compile_ids)), None)
            location = None
            if metrics and metrics.co_filename:
                name = self.code.user_function_name(
                    metrics.co_filename, metrics.co_name or "?", metrics.co_firstlineno or 0
                )
                location = self.location(metrics.co_filename, metrics.co_firstlineno or 0, name)
            short = message if len(message) <= 100 else message[:97] + "..."
            findings.append(
                self.finding(
                    rule,
                    location=location,
                    facts={"message": short, "in_frame": f" `{location.function}`" if location else ""},
                    count=len(hints),
                    impact={"occurrences": len(hints)},
                    evidence={
                        "compile_ids": sorted(str(c) for c in compile_ids),
                        "torch_text": message,
                        "logger": hints[0].logger,
                    },
                )
            )
        return findings

    # -- the target itself
    def target_status(self) -> tuple[str, int | None, Finding | None]:
        outcome = self.context.outcome
        exit_event = self.log.target_exits[-1] if self.log.target_exits else None
        rule = rule_for_kind("target_error")
        stack: tuple[StackFrame, ...] = exit_event.stack if exit_event else ()
        if outcome.timed_out:
            status, code, message = "timeout", None, f"timed out after {outcome.timeout_s:g} s and was stopped"
        elif outcome.interrupted:
            status, code, message = "interrupted", None, "interrupted (Ctrl-C); the run was stopped"
        elif outcome.signal is not None:
            try:
                name = signals.Signals(outcome.signal).name
            except ValueError:
                name = f"signal {outcome.signal}"
            status, code, message = "signal", -outcome.signal, f"crashed with {name}"
        elif exit_event is not None and exit_event.status == "exception":
            status, code = "exception", outcome.returncode if outcome.returncode is not None else exit_event.exit_code
            first_line = (exit_event.message or "").strip().split("\n")[0]
            message = f"{exit_event.exception_type}: {first_line}"
        elif exit_event is not None and exit_event.status in ("ok", "sys_exit"):
            code = outcome.returncode if outcome.returncode is not None else exit_event.exit_code
            if code == 0:
                return ("ok" if exit_event.status == "ok" else "sys_exit"), 0, None
            status, message = "sys_exit", f"exited with code {code} (sys.exit({exit_event.exit_code}))"
        elif outcome.returncode is not None:
            code = outcome.returncode
            if code == 0:
                return "ok", 0, None
            status, message = "exit", f"exited with code {code} before reporting how it ended (os._exit?)"
        else:
            return "unknown", None, None
        frame = self.code.last_user_frame(stack) if stack else None
        location = self.location(frame.file, frame.line, frame.function) if frame else None
        finding = self.finding(
            rule,
            location=location,
            facts={"message": message, "where": location.where if location else "the target"},
            evidence={
                "status": status,
                "exit_code": code,
                "exception_type": exit_event.exception_type if exit_event else None,
                "torch_text": exit_event.message if exit_event else None,
            },
        )
        return status, code, finding

    # -- guards
    def guard_frames(self) -> list[GuardFrame]:
        known = {m.co_filename for m in self.log.metrics if m.co_filename}
        known |= {frame.file for start in self.log.dynamo_starts for frame in start.stack}
        frames = analyze_guards(
            self.log.guard_trees,
            self.metrics_by_id,
            self._function_of,
            known,
            self.code.display,
            self.code.user_function_name,
            self.code.is_library,
        )
        overheads = {(o.function_file, o.function_line): o for o in self.log.guard_overheads}
        return [
            replace(frame, overhead=overheads[(frame.file, frame.line)].as_dict())
            if (frame.file, frame.line) in overheads
            else frame
            for frame in frames
        ]

    def guard_findings(self, frames: list[GuardFrame]) -> list[Finding]:
        findings = []
        for frame in frames:
            location = self.location(frame.file, frame.line, frame.function)
            heaviest = max(frame.entries, key=lambda e: e.user_value_guards, default=None)
            if heaviest is not None and heaviest.user_value_guards >= GUARD_HEAVY:
                kinds = ", ".join(f"{n} {k}" for k, n in list(heaviest.by_kind.items())[:3])
                top_line = next(iter(heaviest.by_source_line), "torch's own checks")
                findings.append(
                    self.finding(
                        rule_for_kind_code("TCD212"),
                        location=location,
                        facts={
                            "function": frame.function,
                            "value_guards": heaviest.user_value_guards,
                            "guards": heaviest.tree_guards,
                            "kinds": kinds,
                            "top_line": top_line,
                        },
                        impact={"guards": heaviest.tree_guards, "torch_guard_count": heaviest.guard_count},
                        evidence={"compile_ids": [heaviest.compile_id], "by_kind": heaviest.by_kind},
                    )
                )
            steady = frame.steady_module_values
            if len(steady) >= STEADY_MODULE_VALUES:
                findings.append(
                    self.finding(
                        rule_for_kind_code("TCD215"),
                        location=location,
                        facts={
                            "function": frame.function,
                            "count": len(steady),
                            "entries": len(frame.entries),
                            "examples": ", ".join(f"`{pin}`" for pin in steady[:3]),
                        },
                        impact={"steady_module_values": len(steady)},
                        evidence={"pins": list(steady[:20])},
                    )
                )
            overhead = frame.overhead
            if overhead and overhead.get("compiled_us") and overhead.get("skip_guards_us") is not None:
                guard_us = max(0.0, overhead["compiled_us"] - overhead["skip_guards_us"])
                share = guard_us / overhead["compiled_us"]
                if share >= GUARD_SHARE:
                    facts = {key: f"{overhead[key]:.1f}" for key in ("compiled_us", "skip_guards_us", "eager_us")}
                    findings.append(
                        self.finding(
                            rule_for_kind_code("TCD214"),
                            location=location,
                            facts={
                                **facts,
                                "function": frame.function,
                                "guard_us": f"{guard_us:.1f}",
                                "share": f"{share:.0%}",
                            },
                            impact={"guard_us_per_call": round(guard_us, 2), "guard_share": round(share, 3)},
                            evidence={"overhead": overhead},
                        )
                    )
        user_files = {
            m.co_filename for m in self.log.metrics if m.co_filename and not self.code.is_library(m.co_filename)
        }
        for tree in self.log.guard_trees:
            for guard in tree.guards:
                where_path = (guard.where or "").rpartition(":")[0]
                # the user's own line, or an implicit guard on their inputs (no line); not library internals
                if where_path:
                    from_user = any(f.endswith(where_path) for f in user_files)
                else:
                    from_user = "L['" in guard.expression
                if guard.kind != "LAMBDA_GUARD" or guard.depth > 1 or not from_user or _is_shape_guard(guard):
                    continue
                metrics = self._function_of(tree.compile_id)
                if metrics is None or not metrics.co_filename or self.code.is_library(metrics.co_filename):
                    continue  # a library frame's Python guards are not the user's to change
                name = self.code.user_function_name(metrics.co_filename, metrics.co_name, metrics.co_firstlineno)
                location = self.location(metrics.co_filename, metrics.co_firstlineno or 0, name)
                findings.append(
                    self.finding(
                        rule_for_kind_code("TCD213"),
                        location=location,
                        facts={
                            "function": name,
                            "expression": readable(guard.expression),
                            "where": guard.where or location.where,  # implicit guards name no line
                        },
                        evidence={"compile_ids": [str(tree.compile_id)]},
                    )
                )
        return _unique(findings)

    # -- suppressions
    def user_files(self, findings: list[Finding]) -> set[str]:
        """The user's files this run touched: where findings are, and every compiled user frame."""
        files = {loc.file for f in findings for loc in (f.location, f.user_frame) if loc is not None}
        files |= {frame.file for start in self.log.dynamo_starts for frame in start.stack}
        files |= {m.co_filename for m in self.log.metrics if m.co_filename}
        return {f for f in files if not self.code.is_library(f)}

    def suppress(self, findings: list[Finding]) -> tuple[list[Finding], list[Finding]]:
        suppressions = suppressions_in(self.code, self.user_files(findings))
        kept, dropped, used = apply_suppressions(findings, suppressions)
        rule = rule_for_kind("unused_suppression")
        for unused in [s for s in suppressions if s not in used]:
            location = self.location(unused.file, unused.line, "")
            comment = "# doctor: ignore" if unused.code == ALL else f"# doctor: ignore[{unused.code}]"
            facts = {"comment": comment, "where": location.where}
            kept.append(self.finding(rule, location=location, facts=facts, evidence={"code": unused.code}))
        return kept, dropped

    # -- summary
    def summary(self, findings: list[Finding]) -> Summary:
        graphs = {g.compile_id for g in self.log.output_graphs}
        return Summary(
            graphs=len(graphs),
            graph_breaks=sum(1 for f in findings if f.kind in ("graph_break", "frame_skipped")),
            graph_break_records=len(self.log.graph_breaks),
            recompiles=len(self.log.recompiles),
            recompile_limit_hits=sum(1 for f in findings if f.kind == "recompile_limit"),
            compile_failures=sum(f.count for f in findings if f.kind == "compile_failure"),
            fallbacks_to_eager=sum(1 for f in findings if f.kind in ("frame_skipped", "recompile_limit")),
            compile_time_s=sum(m.compile_time_s for m in self.log.metrics),
        )


def _unique(findings: list[Finding]) -> list[Finding]:
    seen, kept = set(), []
    for finding in findings:
        if finding.fingerprint not in seen:
            seen.add(finding.fingerprint)
            kept.append(finding)
    return kept


def _backend(log: EventLog) -> str:
    used = sorted({b.used for b in log.backends})
    requested = sorted({b.requested for b in log.backends})
    override = log.bootstrap[-1].backend_override if log.bootstrap else None
    if not used:
        return override or "unknown"
    text = ", ".join(used)
    if override and requested != used:
        text += f" (override of {', '.join(requested)})"
    return text


def _explain_notes(log: EventLog, summary: Summary, findings: list[Finding]) -> tuple[dict | None, list[str]]:
    if not log.explain:
        return None, []
    result = log.explain[-1]
    data = {
        "graph_count": result.graph_count,
        "graph_break_count": result.graph_break_count,
        "break_reasons": list(result.break_reasons),
        "ops_per_graph": list(result.ops_per_graph),
        "error": result.error,
    }
    if result.error:
        return data, [f"torch._dynamo.explain failed ({result.error}); findings come from the trace."]
    notes = []
    if result.graph_break_count != summary.graph_breaks or result.graph_count != summary.graphs:
        why = []
        if any(f.kind == "frame_skipped" for f in findings):
            why.append("a frame fell back to eager, and explain reports 0 graphs / -1 breaks for such frames")
        if result.graph_break_count > summary.graph_breaks:
            why.append(
                "explain counts a break each time a frame or resume function is traced; the doctor counts unique sites"
            )
        if summary.recompiles:
            why.append("explain resets Dynamo and traces one call, so it does not see recompiles")
        if any(f.kind == "compile_failure" for f in findings):
            why.append("the compile failed under capture")
        if not why:
            why.append("explain traces one call with fresh Dynamo state; the doctor watched the whole run")
        notes.append(
            f"torch._dynamo.explain disagrees: {result.graph_count} graphs, {result.graph_break_count} graph breaks "
            f"(the trace: {summary.graphs} graphs, {summary.graph_breaks} unique breaks) because "
            + "; ".join(why)
            + "."
        )
    return data, notes


def registry_note(registry: GraphBreakRegistry) -> str:
    """Which graph-break registry gave GB ids and explanations: a re-read log may come from another torch."""
    label, _, where = registry.source.partition(" (")
    if label == "installed torch":
        return f"graph-break registry: the installed torch's ({where.rstrip(')')})"
    if label == "bundled copy":
        return "graph-break registry: the copy bundled with torchcompile-doctor (torch is not installed here)"
    return f"graph-break registry: {registry.source}"


def analyze(log: EventLog, context: AnalysisContext) -> Report:
    builder = _Builder(log, context)
    findings = (
        builder.graph_break_findings()
        + builder.failure_findings()
        + builder.recompile_findings()
        + builder.limit_findings()
        + builder.perf_hint_findings()
        + builder.ddp_split_findings()
    )
    guard_frames = builder.guard_frames()
    findings += builder.guard_findings(guard_frames)
    status, exit_code, target_finding = builder.target_status()
    if target_finding is not None:
        findings.append(target_finding)
    findings, suppressed = builder.suppress(findings)
    ranked = rank_findings(findings)
    summary = builder.summary(ranked)
    explain, notes = _explain_notes(log, summary, ranked)
    cache_hits = sum(1 for e in log.inductor_cache if e.outcome == "hit")
    if cache_hits and not log.perf_hints:
        notes.append(
            f"inductor loaded {cache_hits} graph(s) from its FX-graph cache and logs no perf hints for those; "
            "rerun with --fresh-inductor-cache to compile them afresh and see the hints."
        )
    notes += [warning.message for warning in log.warnings]
    if suppressed:
        notes.append(f"{len(suppressed)} finding(s) suppressed by `# doctor: ignore[...]` comments.")
    if log.health.problems:
        notes.append(
            f"log health: {log.health.problems} problem(s) in the trace were skipped ({log.health.as_dict()})."
        )
    torch_version = (log.bootstrap[-1].torch_version if log.bootstrap else None) or (
        log.torch_versions[-1].version if log.torch_versions else None
    )
    if context.offline:
        notes.append(registry_note(builder.registry))
    return Report(
        tool_version=__version__,
        torch_version=torch_version,
        target=context.target,
        backend=_backend(log),
        target_exit_code=exit_code,
        target_status=status,
        summary=summary,
        findings=tuple(ranked),
        notes=tuple(notes),
        explain=explain,
        log_health=log.health.as_dict(),
        suppressed=tuple(suppressed),
        guards=tuple(guard_frames),
    )
