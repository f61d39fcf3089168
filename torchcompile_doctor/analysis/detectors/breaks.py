"""Graph breaks (TCD1xx): breaks grouped by (gb_type, file, line), each worded by the catalogue rule its
GB id, text or construct matches, with whose code the line is (origin: the user's, a package's, torch's)
and the facts the rule's library wording needs (what the library line does, the logger method, the
argument left None, ...). A site whose break made torch skip a frame is the fallback detector's
(detectors/fallbacks.py), which builds on the same BreakSite."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TypedDict, cast

from torchcompile_doctor.analysis.call_arguments import left_out_value, passed_keywords
from torchcompile_doctor.analysis.code import THIRD_PARTY, USER, CodeMap, without_doctor_frames
from torchcompile_doctor.analysis.detectors.detector import Derived, Detector
from torchcompile_doctor.analysis.graph_break_registry import RegistryEntry
from torchcompile_doctor.analysis.index import AnalysisIndex
from torchcompile_doctor.analysis.regional import RepeatedBlocks, lists_around_break
from torchcompile_doctor.analysis.worded_findings import finding_from_rule
from torchcompile_doctor.events.model import GraphBreak, StackFrame
from torchcompile_doctor.model.experiment import Combined, Regional
from torchcompile_doctor.model.findings import BreakEvidence, BreakImpact, Impact, SkippedFrame
from torchcompile_doctor.model.report import Finding, Location
from torchcompile_doctor.rules.binding import Binding, Params, RuleSet
from torchcompile_doctor.rules.catalogue import BreakSignature, Rule
from torchcompile_doctor.rules.fixes import RewriteFacts
from torchcompile_doctor.rules.rule_page import gb_page
from torchcompile_doctor.transforms.line_code import code_only, python_path

_POLYFILLS = "/torch/_dynamo/polyfills/"
_LOGGING_MODULE = "/logging/__init__.py"
_STDLIB_LOGGER_METHODS = {"debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log"}


@dataclass(frozen=True, kw_only=True)
class BreakFacts(RewriteFacts):
    """What a break's rule may say: where the user's code meets it, the line that broke, torch's words, and for a
    library's or torch's line what it does (the logger method, the function Dynamo skips, the argument left None)."""

    site_source: str | None = None  # the line that broke (in the standard library: the code calling it)
    site_where: str | None = None
    site_function: str | None = None
    gb_type: str | None = None
    library: str | None = None  # the package whose line it is (None: the user's)
    caller: str | None = None  # the user's line that reaches it
    torch_explanation: str | None = None
    torch_hints: str | None = None
    hint_class: str | None = None
    gb_page: str | None = None
    skipped_function: str | None = None  # a call Dynamo skips: the function
    skipped_library: str | None = None  # and its package
    scheduler_wrapped_step: str | None = None  # an optimizer step called through an LR scheduler's wrapper
    logger: str | None = None  # a `logging.Logger` call: the logger
    logger_method: str | None = None  # its method, when it logs
    logger_function: str | None = None  # `logging.Logger.info`
    logger_function_ref: str | None = None  # what ignore_logging_functions names (`pkg:` a package adds it)
    logger_added_by: str | None = None
    exception: str | None = None  # the exception torch saw raised
    router_loop: str | None = None  # the mixture-of-experts example, where the code routes to experts ("" if not)
    router_rewrite: str | None = None
    regional: str | None = None  # regional compilation at the model's real module list ("": not offered)
    item_if: str | None = None  # `.item()` read in the condition of the line's `if`: the condition without it
    item_while: str | None = None  # in the condition of the line's `while`: the condition without it


GRAPH_BREAK = Binding("graph_break", Params, BreakFacts, rules=None)

# torch/_dynamo/graph_break_hints.py's classes, in words.
_HINT_CLASS_WORDS = {
    "supportable": "supportable: Dynamo could learn to trace this",
    "user_error": "likely a user error that also fails in eager",
    "fundamental": "fundamental: Dynamo will not trace this; work around it",
    "dynamo_bug": "likely a Dynamo bug: report it to PyTorch",
    "difficult": "difficult to debug",
    "caused_by_earlier_break": "caused by an earlier graph break",
}


def outside_polyfills(record: GraphBreak) -> GraphBreak:
    """A break inside Dynamo's polyfills (its Python stand-ins for builtins) belongs to the frame that
    called the polyfill: that is the code the user (or their library) wrote."""
    if _POLYFILLS not in record.file:
        return record
    frame = next((f for f in reversed(record.user_stack) if _POLYFILLS not in f.file), None)
    return replace(record, file=frame.file, line=frame.line) if frame else record


@dataclass(frozen=True)
class _LoggerCall:
    """A `logging.Logger` call the break is at, as the rule's library wording names it."""

    logger: str | None = None
    method: str | None = None
    function: str | None = None
    function_ref: str | None = None
    added_by: str | None = None


def _logger_facts(logger_call: tuple[str, str] | None, inside_logging: str | None) -> _LoggerCall:
    """For a `logging.Logger` break: the method, the logger, and how to name the method for
    `ignore_logging_functions` (a method a package adds to Logger, such as transformers' `warning_once`,
    exists once that package is imported: the experiment imports it first). `inside_logging`: the Logger
    method whose frame the break is in, for a break inside the logging module itself (`Logger.info` calling
    `self.isEnabledFor`): the method to ignore is the one called, not the one it calls (which returns a value)."""
    if logger_call is None:
        return _LoggerCall()
    logger, called = logger_call
    method, package = inside_logging or called, logger.split(".")[0]
    if method not in _STDLIB_LOGGER_METHODS and method.startswith(("is", "get", "_")):
        return _LoggerCall(logger)  # not a call that logs: ignoring it would change the program
    function = f"logging.Logger.{method}"
    added_by = None if method in _STDLIB_LOGGER_METHODS else package
    return _LoggerCall(
        logger=logger,
        method=method,
        function=function,
        function_ref=f"{added_by}:{function}" if added_by else function,
        added_by=f" (a method `{added_by}` adds to `logging.Logger`)" if added_by else "",
    )


def _call_sites(index: AnalysisIndex, records: list[GraphBreak], in_library: bool) -> tuple[str, ...]:
    """The user's lines that reach the break site, first seen first."""
    found = (index.call_site(r.user_stack, r.file, r.line, in_library) for r in records)
    return tuple(dict.fromkeys(caller for caller in found if caller))


def _owner(code: CodeMap, first: GraphBreak) -> tuple[StackFrame, str]:
    """The frame of the code a break is in, and its origin: the break's own frame, or for a line in the
    standard library or Dynamo's stand-ins the nearest caller that is the user's, a package's or torch's."""
    frame = code.owner_frame(first.user_stack, first.file, first.line)
    if frame is not None and (origin := code.origin(frame.file)):
        return (frame, origin)
    fallback = THIRD_PARTY if code.is_library(first.file) else USER
    return (StackFrame(first.file, first.line, "?"), code.origin(first.file) or fallback)


def _skipped_call(code: CodeMap, record: GraphBreak) -> tuple[str, str | None, str | None, str]:
    """For a call Dynamo skips: (the skipped function, whose code it is, its package, its file), as torch named it.
    A step called through an LR scheduler's wrapper names the wrapper's file, torch/optim/lr_scheduler.py."""
    if record.skipped_call is None:
        return ("", None, None, "")
    function, file = record.skipped_call
    origin = code.origin(file)
    return (function, origin, code.package_name(file) if origin != USER else None, file)


def _none_argument(code: CodeMap, first: GraphBreak, site_source: str) -> str | None:
    """For an exception about None: the argument the line used while it was None (left out by the caller:
    `attention_mask[:, None]` with `attention_mask=None`)."""
    if first.raised_call is None or "NoneType" not in first.raised_call:
        return None
    parameters = code.defs.none_default_parameters(first.file, first.line)
    used = [p for p in parameters if re.search(rf"(?<![\w.]){re.escape(p)}\s*[\[.(]", site_source)]
    return used[0] if used else None


_BRANCH = re.compile(r"\s*(?:if|elif|while)\b")


def _branched_argument(code: CodeMap, first: GraphBreak, site_source: str, user_frame: Location | None) -> str | None:
    """An optional argument the library's `if`/`while` at the break reads, which the user's call passes by name
    (`model(ids, attention_mask=mask)` where the library checks `(attention_mask == 1).all()`): leaving it out
    of the call makes the library take its default path, which skips the branch."""
    if user_frame is None or not _BRANCH.match(site_source):
        return None
    passed = passed_keywords(user_frame.source or "")
    optional = code.defs.none_default_parameters(first.file, first.line)
    read = [p for p in optional if p in passed and re.search(rf"(?<![\w.]){re.escape(p)}\b", site_source)]
    return read[0] if read else None


def _left_out(code: CodeMap, first: GraphBreak, site_source: str, user_frame: Location | None) -> _LeftOut:
    """The argument the user's call left out that the library used while None, and what the call can pass for
    it (read from the user's call line)."""
    argument = _none_argument(code, first, site_source)
    call_line = user_frame.source if user_frame else None
    value = left_out_value(call_line, argument) if argument and call_line else None
    return {"none_argument": argument, "none_argument_value": value}


class _LeftOut(TypedDict):
    none_argument: str | None
    none_argument_value: str | None


class _UserCall(_LeftOut):
    branched_argument: str | None


def _user_call_facts(code: CodeMap, first: GraphBreak, site_source: str, user_frame: Location | None) -> _UserCall:
    """What the user's call into a library's code (None: the break is in the user's own code) left out or passes
    that the library's line uses."""
    left_out = _left_out(code, first, site_source, user_frame)
    return {**left_out, "branched_argument": _branched_argument(code, first, site_source, user_frame)}


def _regional_measurable(site: BreakSite, finding: Finding) -> Finding:
    """A break between the blocks of a module list, whose fix offers regional compilation, carries it as its
    experiment when the fix has none, so that --try-fixes and doctor fix measure it (measured by hand on a
    decoder whose layer-drop branch sits between its layers: 4 graphs -> 1, 0 breaks)."""
    found = site.module_lists
    if not found or finding.fix is None or finding.fix.experiment is not None:
        return finding
    lists = tuple(Regional(module_list=b.path, block=f"each block of {python_path(b.path)}") for b in found)
    experiment = lists[0] if len(lists) == 1 else Combined(lists)
    return replace(finding, fix=replace(finding.fix, experiment=experiment))


def _sentences(hints: tuple[str, ...] | list[str]) -> str:
    """torch's hints as sentences: each ends with a full stop, so two hints never read as one sentence."""
    return " ".join(
        h.strip() if h.strip().endswith((".", "!", "?", ":")) else f"{h.strip()}." for h in hints if h.strip()
    )


_ROUTER = re.compile(r"(?i)expert|router|\bmoe|_moe")  # code that routes tokens to experts names them


def _router_example(code: str) -> tuple[str, str]:
    """The mixture-of-experts example of a data-dependent loop and its rewrite, only where the code is a router
    (its function or line names experts or routing): elsewhere (a rotary-position loop, a spline mask) it
    misleads."""
    if not _ROUTER.search(code):
        return ("", "")
    return (" (a mixture-of-experts router's loop over the experts it selected)", " (dense or padded routing)")


# measured: `assert x.max().item() < 10` in a compiled function breaks once; under `python -O`, not at all
_ASSERT_NOTE = (
    " The line is an `assert`: `python -O` strips asserts, and this break with them (measured on a case: 1 graph"
    " break -> 0); a check meant for debug runs only can stay as it is."
)


def _assert_noted(source: str | None, finding: Finding) -> Finding:
    """A break on an `assert` line: say that `python -O` removes it (the check and the break)."""
    if finding.fix is None or not (source or "").lstrip().startswith("assert "):
        return finding
    return replace(finding, fix=replace(finding.fix, summary=finding.fix.summary + _ASSERT_NOTE))


def _item_condition(tree: ast.Module | None, line: int) -> tuple[str, str] | None:
    """("if" or "while", the condition as a tensor, `.item()` left out) where a `.item()` call on `line` is read
    in the condition of an `if` or `while` statement (its syntax tree, never run): dropping `.item()` there leaves
    a tensor condition, a data-dependent branch that still breaks the graph (measured: `if h.mean() > 10:` breaks as
    `if h.mean().item() > 10:` does; an `assert` on a tensor does not, Dynamo turns it into an async assert)."""
    for node in ast.walk(tree) if tree is not None else ():
        if not isinstance(node, ast.If | ast.While) or not node.test.lineno <= line <= (node.test.end_lineno or 0):
            continue
        if any(
            isinstance(inner, ast.Call) and _is_item_call(inner) and inner.lineno == line
            for inner in ast.walk(node.test)
        ):
            tensor_condition = _WithoutItem().visit(ast.parse(ast.unparse(node.test), mode="eval"))
            return ("if" if isinstance(node, ast.If) else "while", ast.unparse(tensor_condition))
    return None


class _Situation(TypedDict, total=False):
    """Facts of advice that fits one situation only (BreakFacts' fields of the same names)."""

    router_loop: str
    router_rewrite: str
    regional: str
    item_if: str
    item_while: str


class _TorchWords(TypedDict):
    torch_explanation: str
    torch_hints: str | None


def _item_branch(index: AnalysisIndex, at: Location) -> _Situation:
    """The facts of a `.item()` read in the condition of the `if` or `while` at the line to change."""
    found = _item_condition(index.code.defs.tree(at.file), at.line)
    if found is None:
        return {}
    return {"item_if": found[1]} if found[0] == "if" else {"item_while": found[1]}


def _is_item_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "item"


class _WithoutItem(ast.NodeTransformer):
    """`h.mean().item() > 10` -> `h.mean() > 10`: the condition as a tensor."""

    def visit_Call(self, node: ast.Call) -> ast.AST:
        node = cast(ast.Call, self.generic_visit(node))
        return cast(ast.Attribute, node.func).value if _is_item_call(node) and not node.args else node


def _torch_words(first: GraphBreak, entry: RegistryEntry | None) -> _TorchWords:
    """torch's explanation of the break and its hints (each its own sentence), from the record or the registry."""
    hints = _sentences(first.hints or (entry.hints if entry else ())) or None
    return {"torch_explanation": first.explanation or (entry.explanation if entry else ""), "torch_hints": hints}


def _situational(
    index: AnalysisIndex, module_lists: tuple[RepeatedBlocks, ...], code: str, change_at: Location
) -> _Situation:
    """The facts of advice that fits one situation only: the router example, regional compilation, a `.item()`
    read by the condition of an `if` or `while`."""
    loop, rewrite = _router_example(code)
    situation: _Situation = {
        "router_loop": loop,
        "router_rewrite": rewrite,
        "regional": _regional_advice(module_lists),
    }
    situation.update(_item_branch(index, change_at))
    return situation


def _regional_advice(found: tuple[RepeatedBlocks, ...]) -> str:
    """Regional compilation at the model's real module lists, offered only for a break between their blocks."""
    if not found:
        return ""
    return (
        " From outside, compile the repeated blocks instead of the whole model (regional compilation):"
        f" {' and '.join(f'`{b.code}`' for b in found)}, with `model` the module you compiled, and call `model`"
        " uncompiled; the loop over the blocks, where this break sits, then runs eagerly and each block compiles"
        " without a break."
    )


def break_sites(index: AnalysisIndex) -> dict[tuple[str, str, int], list[GraphBreak]]:
    """The break records grouped by site: (gb_type, file, line), polyfills mapped to their caller."""
    groups: dict[tuple[str, str, int], list[GraphBreak]] = defaultdict(list)
    for record in map(outside_polyfills, index.log.graph_breaks):
        groups[(record.gb_type, record.file, record.line)].append(record)
    return groups


def caused_skip(records: list[GraphBreak]) -> bool:
    """Torch says the break made it skip a frame: the fallback detector reports the site."""
    return any(r.frame_skipped for r in records)


def graph_breaks(index: AnalysisIndex, derived: Derived, rules: RuleSet[Params]) -> list[Finding]:
    """One finding per break site, but for sites that made torch skip a frame (detectors/fallbacks.py)."""
    return [
        BreakSite.of(index, records, rules).finding()
        for records in break_sites(index).values()
        if not caused_skip(records)
    ]


DETECTOR = Detector(GRAPH_BREAK, graph_breaks)


@dataclass(frozen=True)
class BreakSite:
    """What is known about one break site: where it is, where the user's code reaches it, torch's words."""

    index: AnalysisIndex
    rules: RuleSet[Params]  # the break rules
    records: list[GraphBreak]
    first: GraphBreak
    text: str  # torch's message without the traceback
    entry: RegistryEntry | None
    function: str  # the site's function, as torch named it
    location: Location
    user_frame: Location | None  # for a site in library code: the user's call into it
    call_sites: tuple[str, ...]
    module_lists: tuple[RepeatedBlocks, ...]  # whose loops hold the break between their blocks (regional's)

    @classmethod
    def of(cls, index: AnalysisIndex, records: list[GraphBreak], rules: RuleSet[Params]) -> BreakSite:
        first = outside_polyfills(records[0])
        site_frame = next(
            (f for f in reversed(first.user_stack) if f.file == first.file and f.line == first.line), None
        )
        function = site_frame.function if site_frame else "?"
        code = index.code
        in_library = code.is_library(first.file)
        call_sites = _call_sites(index, records, in_library)
        user_frames = [f for f in (code.last_user_frame(r.user_stack) for r in records) if f is not None]
        frame = min(user_frames, key=lambda f: (f.file, f.line), default=None) if in_library else None
        user_frame = index.location(frame.file, frame.line, frame.function) if frame is not None else None
        return cls(
            index=index,
            rules=rules,
            records=records,
            first=first,
            text=first.message,
            entry=index.registry.get(first.gb_id) or index.registry.lookup(first.gb_type, first.message),
            function=function,
            location=index.location(first.file, first.line, code.user_function_name(first.file, function, first.line)),
            user_frame=user_frame,
            call_sites=call_sites,
            module_lists=lists_around_break(index, records),
        )

    @property
    def change_at(self) -> Location:
        """Inside library code the line to change is the user's call into it."""
        return self.user_frame or self.location

    @cached_property
    def owner(self) -> tuple[StackFrame, str]:
        """The frame of the code the break is in, and its origin: `user`, `third_party` or `torch`."""
        return _owner(self.index.code, self.first)

    @property
    def origin(self) -> str:
        return self.owner[1]

    def facts(self) -> BreakFacts:
        first, entry, location = self.first, self.entry, self.location
        owner = self.owner[0]
        if (owner.file, owner.line) != (first.file, first.line):  # a stdlib line: speak of the code calling it
            name = self.index.code.user_function_name(owner.file, owner.function, owner.line)
            location = self.index.location(owner.file, owner.line, name)
        site_source = code_only(location.source or "")
        skipped = _skipped_call(self.index.code, first)
        logger = _logger_facts(first.logger_call, self.function if first.file.endswith(_LOGGING_MODULE) else None)
        return BreakFacts(
            where=self.change_at.where,
            source=code_only(self.change_at.source or ""),
            function=self.change_at.function,
            site_source=site_source,
            site_where=location.where,
            site_function=location.function,
            gb_type=first.gb_type,
            library=self.index.code.package_name(owner.file) if self.origin != USER else None,
            caller=self.user_frame.where
            if self.user_frame
            else (self.call_sites[0] if self.call_sites else location.where),
            **_torch_words(first, entry),
            hint_class=_HINT_CLASS_WORDS.get((entry.hint_class if entry else None) or ""),
            gb_page=gb_page(first.gb_id or (entry.gb_id if entry else None)),
            skipped_function=skipped[0] or None,
            skipped_library=skipped[2],
            scheduler_wrapped_step=skipped[0] if skipped[3].endswith("/torch/optim/lr_scheduler.py") else None,
            logger=logger.logger,
            logger_method=logger.method,
            logger_function=logger.function,
            logger_function_ref=logger.function_ref,
            logger_added_by=logger.added_by,
            exception=first.raised_call,
            **_user_call_facts(self.index.code, first, site_source, self.user_frame if self.origin != USER else None),
            **_situational(self.index, self.module_lists, f"{location.function} {site_source}", self.change_at),
        )

    @property
    def impact(self) -> BreakImpact:
        compile_ids = {r.compile_id for r in self.records if r.compile_id is not None}
        return BreakImpact(
            occurrences=len(self.records),
            compiles=len(compile_ids),
            recompiles_caused=self.index.recompiles_of_resume(self.function, self.first.line),
            compile_seconds=self.index.compile_seconds(compile_ids),
        )

    def finding_by(
        self, rule: Rule, facts: BreakFacts, impact: Impact | None = None, skipped: tuple[SkippedFrame, ...] = ()
    ) -> Finding:
        """A finding of the site worded by `rule` (the break's own, or the fallback's), its category the break's."""
        records, first, entry = self.records, self.first, self.entry
        compile_ids = {r.compile_id for r in records if r.compile_id is not None}
        return finding_from_rule(
            rule,
            location=self.location,
            facts=facts,
            fix_line=self.index.source_line(self.change_at.file, self.change_at.line),
            gb_id=first.gb_id or (entry.gb_id if entry else None),
            gb_type=first.gb_type,
            category=self.rule.category,
            origin=self.origin,
            count=len(records),
            call_sites=self.call_sites,
            user_frame=self.user_frame,
            torch_says=self.index.code.display_text(facts.torch_explanation) if facts.torch_explanation else None,
            impact=impact if impact is not None else self.impact,
            evidence=BreakEvidence(
                compile_ids=sorted(str(c) for c in compile_ids),
                secondary_gb_ids=sorted({g for r in records for g in r.secondary_gb_ids}),
                hint_class=entry.hint_class if entry else None,
                torch_text=without_doctor_frames(self.text.strip())[:2000],
            ),
            skipped_frames=skipped,
        )

    @cached_property
    def rule(self) -> Rule:
        """The catalogue rule the break matches (by GB id, gb_type, torch's text, the construct around it and
        whose code it is), worded for where the line is."""
        gb_id = self.first.gb_id or (self.entry.gb_id if self.entry else None)
        signature = BreakSignature(
            gb_id,
            self.first.gb_type,
            self.text,
            self.origin,
            self.owner[0].file,
            _skipped_call(self.index.code, self.first)[1],
        )
        return self.rules.for_break(signature).worded_for(self.origin, self.facts())

    def finding(self) -> Finding:
        return _regional_measurable(self, _assert_noted(self.location.source, self.finding_by(self.rule, self.facts())))
