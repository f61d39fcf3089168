"""Fallbacks to eager (TCD403): the frames torch skipped (`compilation_metrics` records with a
`fail_type`), grouped by the graph break that made torch skip them. One finding per break site: it names
every frame that now runs eagerly, says why torch could not resume there (a loop, a `try` or `with`
block, an attribute access into code Dynamo inlined, a comprehension, ...), and keeps the break's own
location, GB id, category and fix."""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from torchcompile_doctor.analysis.code import THIRD_PARTY, USER
from torchcompile_doctor.analysis.detectors.breaks import GRAPH_BREAK, BreakFacts, BreakSite, break_sites, caused_skip
from torchcompile_doctor.analysis.detectors.detector import Derived, Detector
from torchcompile_doctor.analysis.function_defs import RESUME, calls_name, wraps_target
from torchcompile_doctor.analysis.index import AnalysisIndex
from torchcompile_doctor.events.model import CompilationMetrics, CompileId, GraphBreak, StackFrame
from torchcompile_doctor.model.findings import FallbackImpact, SkippedFrame
from torchcompile_doctor.model.report import Finding
from torchcompile_doctor.rules.binding import Binding, Params, RuleSet
from torchcompile_doctor.rules.facts import Facts, fill

# What torch raises when it gives up on a whole frame at a graph break (not a backend error, not the limit).
_SKIP_FAIL_TYPES = frozenset({"Unsupported", "UserError"})
_COMPREHENSIONS = frozenset({"<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>"})
_GRAPH_BREAK_IN_LOOP = "GB7000"  # torch's "graph break in loop": the frame is skipped because the break is in a loop
_OBSERVED_EXCEPTION = "Observed exception"  # torch traced an exception that leaves the frame
_Function = ast.FunctionDef | ast.AsyncFunctionDef
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_TRIES = (ast.Try,) + ((ast.TryStar,) if hasattr(ast, "TryStar") else ())
_WITHS = (ast.With, ast.AsyncWith)


@dataclass(frozen=True, kw_only=True)
class FallbackFacts(BreakFacts):
    """The break's facts, and the frames it made torch skip: the first one named, how many more, all of them
    with their places, and why torch could not resume in each (a sentence per reason, the rule's `reasons`)."""

    frame: str | None = None
    and_more: str | None = None
    frames: str | None = None
    whole: str | None = None
    break_where: str | None = None
    reasons: str | None = None
    break_fix: str | None = None  # the break's own fix, which is the fallback's too


@dataclass(frozen=True, kw_only=True)
class SkipFacts(Facts):
    """What one reason's sentence (a `reasons` template of the rule) names."""

    frame: str | None = None
    line: int | str | None = None
    statement: str | None = None
    call_line: int | None = None
    exception: str | None = None
    source: str | None = None
    attribute: str | None = None
    callee: str | None = None
    name: str | None = None
    resume: str | None = None  # a resume function: the line of the break it resumes after
    loops: str | None = None  # a frame whose line the stack lacks: its loops, each with its line


@dataclass(frozen=True)
class FallbackParams(Params):
    # the sentence for each reason torch could not resume (`loop`, `try_block`, `attribute`, ...; `resume`, the
    # prefix for a resume function; `unknown`, when the trace does not say)
    reasons: Mapping[str, str] = field(default_factory=dict)


FALLBACK = Binding("fallback", FallbackParams, FallbackFacts, reads=(GRAPH_BREAK.detector,))


@dataclass(frozen=True)
class _Skip:
    """One frame torch skipped, and the break record (in the same compile) that made it."""

    frame: SkippedFrame
    co_name: str
    record: GraphBreak | None
    wrapped: str | None = None  # a decorator's wrapper: the function it wraps (its `__wrapped__`)


def fallbacks(index: AnalysisIndex, derived: Derived, rules: RuleSet[FallbackParams]) -> list[Finding]:
    """One finding per break site that made torch skip frames, naming each frame it skipped."""
    sites = {key: records for key, records in break_sites(index).items() if caused_skip(records)}
    skips = _skips_by_site(index, sites)
    return [
        _fallback_finding(
            BreakSite.of(index, records, rules.of(GRAPH_BREAK)),
            rules,
            _name_wrappers(index, skips.get(key) or _named(index, records)),
        )
        for key, records in sites.items()
    ]


DETECTOR = Detector(FALLBACK, fallbacks)


def _skips_by_site(
    index: AnalysisIndex, sites: dict[tuple[Any, ...], list[GraphBreak]]
) -> dict[tuple[Any, ...], list[_Skip]]:
    """Each frame a compile gave up on, under the break site whose record (same compile id) says so."""
    in_compile: dict[CompileId | None, list[tuple[tuple[Any, ...], GraphBreak]]] = defaultdict(list)
    for key, records in sites.items():
        for record in records:
            in_compile[record.compile_id].append((key, record))
    found: dict[tuple[Any, ...], list[_Skip]] = defaultdict(list)
    for metrics in index.log.metrics:
        if metrics.fail_type not in _SKIP_FAIL_TYPES or metrics.compile_id not in in_compile:
            continue
        candidates = in_compile[metrics.compile_id]
        key, record = next(
            ((k, r) for k, r in candidates if r.frame_skipped),
            next(((k, r) for k, r in candidates if (r.file, r.line) == (metrics.fail_file, metrics.fail_line)), None)
            or candidates[-1],
        )
        skip = _Skip(_skipped_frame(index, metrics), metrics.co_name or "?", record)
        if all(s.frame != skip.frame for s in found[key]):  # the same frame again after a reset
            found[key].append(skip)
    return found


def _skipped_frame(index: AnalysisIndex, metrics: CompilationMetrics) -> SkippedFrame:
    file, line, co_name = metrics.co_filename or "?", metrics.co_firstlineno or 0, metrics.co_name or "?"
    if co_name in _COMPREHENSIONS:  # Python's own qualified name: `Block.forward.<locals>.<listcomp>`
        outer = index.code.defs.enclosing_function(file, line)
        return SkippedFrame(f"{outer}.<locals>.{co_name}" if outer else co_name, file, line)
    return SkippedFrame(index.function_name(file, co_name, line), file, line)


def _named(index: AnalysisIndex, records: list[GraphBreak]) -> list[_Skip]:
    """A log without compilation_metrics: the frames torch's skip messages name."""
    skips: list[_Skip] = []
    for record in records:
        for named in record.named_skips:
            file, line, name = named.file, named.line, named.function
            frame = SkippedFrame(index.function_name(file, name, line), file, line)
            if all(s.frame != frame for s in skips):
                skips.append(_Skip(frame, name, record))
    return skips


def _name_wrappers(index: AnalysisIndex, skips: list[_Skip]) -> list[_Skip]:
    """A decorator's wrapper (`@functools.wraps(func)`) is named by the function it wraps, as the user knows
    it: `DbrxModel.forward via @merge_with_config_defaults`, not `merge_with_config_defaults.<locals>.wrapper`."""
    named = []
    for i, skip in enumerate(skips):
        wrapped = _wrapped_function(index, skip, skips[i + 1 : i + 2])
        if wrapped is not None:
            decorator = skip.frame.function.split(".<locals>.")[0]
            skip = replace(skip, frame=replace(skip.frame, function=f"{wrapped} via @{decorator}"), wrapped=wrapped)
        named.append(skip)
    return named


def _wrapped_function(index: AnalysisIndex, skip: _Skip, next_skip: list[_Skip]) -> str | None:
    """What the wrapper `skip` calls as its `__wrapped__`: the next frame of the user's or a library's code on
    the break's stack after the wrapper's call of `func`, followed through further wrappers. Where torch's
    stack merged the wrapper's frame into a frame of the same name (a wrapper of a wrapper), that frame is what
    it called: the frame torch skipped next for this break, or else the only such wrapper on the stack."""
    node = index.code.defs.function_node(skip.frame.file, skip.co_name, skip.frame.line)
    if node is None or wraps_target(node) is None or skip.record is None:
        return None
    stack = skip.record.user_stack
    position = _position(skip.record, skip.frame.file, node)
    if position is None:  # merged: start from the next wrapper of the same name, as if called from our line
        same_name = [f for f in stack if f.function == skip.co_name and _wrapper_node(index, f) is not None]
        skipped_next = [f for f in same_name for n in next_skip if _within(index, n, f)]
        position = skipped_next[0] if skipped_next else same_name[0] if len(same_name) == 1 else None
        node = _wrapper_node(index, position) if position is not None else None
    return _follow_wrappers(index, stack, node, position)


def _follow_wrappers(
    index: AnalysisIndex, stack: tuple[StackFrame, ...], node: _Function | None, position: StackFrame | None
) -> str | None:
    """From a wrapper's frame on the stack, the function its call of `func` reaches through further wrappers."""
    while node is not None and position is not None:
        target = wraps_target(node)
        if target is None or not calls_name(node, target, position.line):
            return None
        after = stack[stack.index(position) + 1 :]
        callee = next((f for f in after if index.code.origin(f.file) in (USER, THIRD_PARTY)), None)
        if callee is None:
            return None
        node, position = _wrapper_node(index, callee), callee
        if node is None:
            return index.code.user_function_name(callee.file, callee.function, callee.line)
    return None


def _within(index: AnalysisIndex, skip: _Skip, frame: StackFrame) -> bool:
    """Whether the stack's `frame` is inside the code of the skipped function `skip`."""
    node = index.code.defs.function_node(skip.frame.file, skip.co_name, skip.frame.line)
    return node is not None and frame.file == skip.frame.file and node.lineno <= frame.line <= (node.end_lineno or 0)


def _wrapper_node(index: AnalysisIndex, frame: StackFrame) -> _Function | None:
    """The `def` of a stack frame when it is a `functools.wraps` wrapper."""
    node = index.code.defs.function_node(frame.file, frame.function, frame.line)
    return node if node is not None and wraps_target(node) is not None else None


def _fallback_finding(site: BreakSite, rules: RuleSet[FallbackParams], skips: list[_Skip]) -> Finding:
    """The skip rule's finding at the break's own line, fixed the way the break is."""
    index = site.index
    break_finding = site.finding()
    featured = next(
        (s for s in skips if "<locals>" not in s.frame.function and s.wrapped is None),
        next((s for s in skips if s.wrapped is not None), skips[0] if skips else None),
    )
    shown = ", ".join(f"`{s.frame.function}` ({index.code.display(s.frame.file)}:{s.frame.line})" for s in skips)
    facts = FallbackFacts(
        **vars(site.facts()),
        frame=featured.frame.function if featured else site.location.function,
        and_more=f" (and {len(skips) - 1} more frame{'s' if len(skips) > 2 else ''})" if len(skips) > 1 else "",
        frames=shown or f"`{site.location.function}`",
        whole="each whole function" if len(skips) > 1 else "the whole function",
        break_where=site.location.where,
        reasons=_reasons(index, rules.params.reasons, skips),
        break_fix=break_finding.fix.summary if break_finding.fix else "",
    )
    impact = site.impact
    eager_lines = sum(_size(index, s) for s in skips)
    impact = FallbackImpact(
        occurrences=impact.occurrences,
        compiles=impact.compiles,
        recompiles_caused=impact.recompiles_caused,
        compile_seconds=impact.compile_seconds,
        frames_skipped=len(skips),
        eager_lines=eager_lines,
    )
    finding = site.finding_by(rules.only, facts, impact, tuple(s.frame for s in skips))
    assert finding.fix is not None and break_finding.fix is not None  # every rule has a fix
    fix = break_finding.fix
    return replace(
        finding,
        fix=replace(fix, summary=finding.fix.summary),
        why=finding.why + " " + break_finding.why,
    )


def _size(index: AnalysisIndex, skip: _Skip) -> int:
    """Source lines of the skipped function (what now runs without compilation)."""
    node = index.code.defs.function_node(skip.frame.file, skip.co_name, skip.frame.line)
    if node is None:
        return 1
    resume = RESUME.match(skip.co_name)
    start = int(resume["line"]) if resume else node.lineno
    return max(1, (node.end_lineno or node.lineno) - start + 1)


def _reasons(index: AnalysisIndex, templates: Mapping[str, str], skips: list[_Skip]) -> str:
    """Why torch could not resume inside each skipped frame, one sentence per reason (frames that share
    one are named together)."""
    grouped: dict[tuple[str, SkipFacts], list[str]] = {}
    for skip in skips:
        grouped.setdefault(_why_skipped(index, skip), []).append(f"`{skip.frame.function}`")
    sentences = []
    for (key, facts), names in grouped.items():
        frame = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
        resume = SkipFacts(frame=frame, line=facts.resume)
        prefix = fill(templates["resume"], resume) + " " if facts.resume else ""
        sentences.append(prefix + fill(templates[key], replace(facts, frame=frame)))
    return " ".join(sentences) or fill(templates["unknown"], SkipFacts(frame="the frame"))


def _why_skipped(index: AnalysisIndex, skip: _Skip) -> tuple[str, SkipFacts]:
    """Why torch could not resume inside this frame: a reason's key and its facts, from the trace (GB7000,
    torch's exception, the stack) and the frame's code."""
    resume = RESUME.match(skip.co_name)
    line = resume["line"] if resume else None
    if skip.co_name in _COMPREHENSIONS:
        return "comprehension", SkipFacts(resume=line)
    node = index.code.defs.function_node(skip.frame.file, skip.co_name, skip.frame.line)
    key, found = _reason(index, skip, node, _position(skip.record, skip.frame.file, node))
    return key, replace(found, resume=line)


def _reason(
    index: AnalysisIndex, skip: _Skip, node: _Function | None, position: StackFrame | None
) -> tuple[str, SkipFacts]:
    """The reason's key in the rule's params and the facts its sentence names: torch's own word first
    (GB7000: a loop; an exception leaving the frame), then where the frame was (a `try`/`with` block),
    then how it reached the break (an attribute access, a call)."""
    record = skip.record
    blocks = _enclosing(node, position.line) if node is not None and position is not None else []
    line = position.line if position else skip.frame.line
    said = _said_by_torch(index, skip, node, blocks, position)
    if said is not None:
        return said
    code = index.code
    block = next((b for b in reversed(blocks) if isinstance(b, _TRIES + _WITHS)), None)
    if block is not None:
        statement = code.source_line(skip.frame.file, block.lineno) or ""
        key = "try_block" if isinstance(block, _TRIES) else "with_block"
        return key, SkipFacts(line=block.lineno, statement=statement, call_line=line)
    if record is None or position is None:
        merged = record is not None and any(f.function == skip.co_name for f in record.user_stack)
        return ("merged" if merged else "unknown"), SkipFacts(name=skip.co_name)
    return _reached_through(index, skip, node, position)


def _said_by_torch(
    index: AnalysisIndex, skip: _Skip, node: _Function | None, blocks: list[ast.stmt], position: StackFrame | None
) -> tuple[str, SkipFacts] | None:
    """Torch's own word on the record: GB7000 (a graph break in a loop), or an exception leaving the frame."""
    record = skip.record
    if record is None:
        return None
    line = position.line if position is not None else skip.frame.line
    if _GRAPH_BREAK_IN_LOOP in (*record.secondary_gb_ids, record.gb_id):
        loop = next((b for b in reversed(blocks) if isinstance(b, _LOOPS)), None)
        if loop is not None:
            statement = index.code.source_line(skip.frame.file, loop.lineno) or "for"
            return "loop", SkipFacts(line=loop.lineno, statement=statement)
        if position is None:  # the stack does not show where the frame was: cite its loops, never its `def` line
            loops = _loops_of(node) if node is not None else []
            if loops:
                source = index.code.source_line
                cited = ", ".join(f"`{source(skip.frame.file, n.lineno)}` (line {n.lineno})" for n in loops)
                return "loop_unplaced", SkipFacts(loops=cited)
            return "loop_unseen", SkipFacts()
        return "loop_after", SkipFacts(line=line)
    if record.gb_type.startswith(_OBSERVED_EXCEPTION):
        return "exception", SkipFacts(exception=record.raised or "an exception")
    return None


def _reached_through(
    index: AnalysisIndex, skip: _Skip, node: _Function | None, position: StackFrame
) -> tuple[str, SkipFacts]:
    """Neither a loop nor a block: the break is at the frame's own line, or in code Dynamo inlined from it
    (through an attribute access, or a call)."""
    assert skip.record is not None
    stack = skip.record.user_stack
    callees = stack[stack.index(position) + 1 :]
    code, line = index.code, position.line
    if not callees:
        return "at_line", SkipFacts(line=line, source=code.source_line(skip.frame.file, line) or "")
    attributes, calls = _names_at(node, line) if node is not None else (set(), set())
    attribute = next((f.function for f in callees if f.function in attributes and f.function not in calls), None)
    if attribute is not None:
        return "attribute", SkipFacts(line=line, attribute=attribute)
    callee = code.user_function_name(callees[0].file, callees[0].function, callees[0].line)
    return ("inlined_call" if calls else "implicit"), SkipFacts(line=line, callee=callee)


def _position(record: GraphBreak | None, file: str, node: _Function | None) -> StackFrame | None:
    """The skipped frame's own line on the break's stack: where it was when the break happened."""
    if record is None or node is None:
        return None
    start = min([node.lineno] + [d.lineno for d in node.decorator_list])
    end = node.end_lineno or node.lineno
    return next((f for f in record.user_stack if f.file == file and start <= f.line <= end), None)


def _enclosing(node: _Function, line: int) -> list[ast.stmt]:
    """The loops, `try` and `with` statements of the function (not of nested ones) whose body holds
    `line`, outermost first."""
    found: list[ast.stmt] = []

    def visit(parent: ast.AST) -> None:
        for child in ast.iter_child_nodes(parent):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                continue
            if isinstance(child, ast.stmt) and child.lineno <= line <= (child.end_lineno or child.lineno):
                # a loop's own header runs on every iteration; a `try:` or `with ...:` line is not in its block
                if isinstance(child, _LOOPS) or (isinstance(child, _TRIES + _WITHS) and line > child.lineno):
                    found.append(child)
                visit(child)

    visit(node)
    return found


def _loops_of(node: _Function) -> list[ast.stmt]:
    """The function's own loops (not those of nested functions), outermost first, in source order."""
    found: list[ast.stmt] = []

    def visit(parent: ast.AST) -> None:
        for child in ast.iter_child_nodes(parent):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                continue
            if isinstance(child, _LOOPS):
                found.append(child)
            else:
                visit(child)

    visit(node)
    return found


def _names_at(node: _Function, line: int) -> tuple[set[str], set[str]]:
    """(attribute names read, function names called) by the expressions on `line` of the function."""
    attributes: set[str] = set()
    calls: set[str] = set()
    for child in ast.walk(node):
        if not isinstance(child, (ast.Attribute, ast.Call)) or not child.lineno <= line <= (child.end_lineno or 0):
            continue
        if isinstance(child, ast.Call):
            func = child.func
            calls.add(func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", ""))
        else:
            attributes.add(child.attr)
    return attributes, calls
