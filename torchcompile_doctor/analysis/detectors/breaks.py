"""Graph breaks (TCD1xx): breaks grouped by (gb_type, file, line), each worded by the catalogue rule its
GB id, text or construct matches, with whose code the line is (origin: the user's, a package's, torch's)
and the facts the rule's library wording needs (what the library line does, the logger method, the
argument left None, ...). A site whose break made torch skip a frame is the fallback detector's
(detectors/fallbacks.py), which builds on the same BreakSite."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property

from torchcompile_doctor.analysis.code import THIRD_PARTY, USER, CodeMap, without_doctor_frames
from torchcompile_doctor.analysis.findings import finding_from_rule
from torchcompile_doctor.analysis.graph_break_registry import RegistryEntry
from torchcompile_doctor.analysis.index import AnalysisIndex
from torchcompile_doctor.analysis.regional import repeated_blocks_on
from torchcompile_doctor.events.model import GraphBreak, StackFrame
from torchcompile_doctor.model.findings import BreakEvidence, BreakImpact
from torchcompile_doctor.model.report import Finding, Location
from torchcompile_doctor.rules import Rule, rule_for_break
from torchcompile_doctor.rules.fixes import code_only
from torchcompile_doctor.rules.rule_page import gb_page

_POLYFILLS = "/torch/_dynamo/polyfills/"
_LOGGING_MODULE = "/logging/__init__.py"
_STDLIB_LOGGER_METHODS = {"debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log"}

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


def _logger_facts(logger_call: tuple[str, str] | None, inside_logging: str | None) -> dict:
    """For a `logging.Logger` break: the method, the logger, and how to name the method for
    `ignore_logging_functions` (a method a package adds to Logger, such as transformers' `warning_once`,
    exists once that package is imported: the experiment imports it first). `inside_logging`: the Logger
    method whose frame the break is in, for a break inside the logging module itself (`Logger.info` calling
    `self.isEnabledFor`): the method to ignore is the one called, not the one it calls (which returns a value)."""
    if logger_call is None:
        return {}
    logger, called = logger_call
    method, package = inside_logging or called, logger.split(".")[0]
    if method not in _STDLIB_LOGGER_METHODS and method.startswith(("is", "get", "_")):
        return {"logger": logger}  # not a call that logs: ignoring it would change the program
    function = f"logging.Logger.{method}"
    added_by = None if method in _STDLIB_LOGGER_METHODS else package
    return {
        "logger": logger,
        "logger_method": method,
        "logger_function": function,
        "logger_function_ref": f"{added_by}:{function}" if added_by else function,
        "logger_added_by": f" (a method `{added_by}` adds to `logging.Logger`)" if added_by else "",
    }


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


def _exception_facts(code: CodeMap, first: GraphBreak, site_source: str) -> dict:
    """The exception torch saw raised, and the argument the line used while it was None (left out by the
    caller: `attention_mask[:, None]` with `attention_mask=None`)."""
    raised = first.raised_call
    if raised is None:
        return {}
    facts: dict = {"exception": raised}
    if "NoneType" in raised:
        parameters = code.defs.none_default_parameters(first.file, first.line)
        used = [p for p in parameters if re.search(rf"(?<![\w.]){re.escape(p)}\s*[\[.(]", site_source)]
        facts["none_argument"] = used[0] if used else None
    return facts


def _sentences(hints: Sequence[str]) -> str:
    """torch's hints as sentences: each ends with a full stop, so two hints never read as one sentence."""
    return " ".join(
        h.strip() if h.strip().endswith((".", "!", "?", ":")) else f"{h.strip()}." for h in hints if h.strip()
    )


_ROUTER = re.compile(r"(?i)expert|router|\bmoe|_moe")  # code that routes tokens to experts names them


def _router_facts(code: str) -> dict:
    """The mixture-of-experts example of a data-dependent loop, only where the code is a router (its function
    or line names experts or routing): elsewhere (a rotary-position loop, a spline mask) it misleads."""
    if not _ROUTER.search(code):
        return {"router_loop": "", "router_rewrite": ""}
    return {
        "router_loop": " (a mixture-of-experts router's loop over the experts it selected)",
        "router_rewrite": " (dense or padded routing)",
    }


def _regional_advice(index: AnalysisIndex, records: list[GraphBreak]) -> str:
    """Regional compilation at the model's real module list, offered only for a break between its blocks
    (inside a block, compiling the blocks one by one still breaks in each)."""
    found = next((b for b in (repeated_blocks_on(index.code, r.user_stack) for r in records) if b is not None), None)
    if found is None or found.inside_block:
        return ""
    return (
        " From outside, compile the repeated blocks instead of the whole model (regional compilation):"
        f" `{found.code}`, with `model` the module you compiled, and call `model` uncompiled; the loop over"
        " the blocks, where this break sits, then runs eagerly and each block compiles without a break."
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


def graph_breaks(index: AnalysisIndex, rules: Sequence[Rule]) -> list[Finding]:
    """One finding per break site, but for sites that made torch skip a frame (detectors/fallbacks.py)."""
    return [
        BreakSite.of(index, records).finding() for records in break_sites(index).values() if not caused_skip(records)
    ]


@dataclass(frozen=True)
class BreakSite:
    """What is known about one break site: where it is, where the user's code reaches it, torch's words."""

    index: AnalysisIndex
    records: list[GraphBreak]
    first: GraphBreak
    text: str  # torch's message without the traceback
    entry: RegistryEntry | None
    function: str  # the site's function, as torch named it
    location: Location
    user_frame: Location | None  # for a site in library code: the user's call into it
    call_sites: tuple[str, ...]

    @classmethod
    def of(cls, index: AnalysisIndex, records: list[GraphBreak]) -> BreakSite:
        first = outside_polyfills(records[0])
        text = first.message
        site_frame = next(
            (f for f in reversed(first.user_stack) if f.file == first.file and f.line == first.line), None
        )
        function = site_frame.function if site_frame else "?"
        code = index.code
        in_library = code.is_library(first.file)
        call_sites = _call_sites(index, records, in_library)
        user_frame = None
        user_frames = [f for f in (code.last_user_frame(r.user_stack) for r in records) if f is not None]
        if in_library and user_frames:
            frame = min(user_frames, key=lambda f: (f.file, f.line))
            user_frame = index.location(frame.file, frame.line, frame.function)
        return cls(
            index=index,
            records=records,
            first=first,
            text=text,
            entry=index.registry.get(first.gb_id) or index.registry.lookup(first.gb_type, text),
            function=function,
            location=index.location(first.file, first.line, code.user_function_name(first.file, function, first.line)),
            user_frame=user_frame,
            call_sites=call_sites,
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

    def facts(self) -> dict:
        first, entry, location = self.first, self.entry, self.location
        owner = self.owner[0]
        if (owner.file, owner.line) != (first.file, first.line):  # a stdlib line: speak of the code calling it
            name = self.index.code.user_function_name(owner.file, owner.function, owner.line)
            location = self.index.location(owner.file, owner.line, name)
        site_source = code_only(location.source or "")
        skipped = _skipped_call(self.index.code, first)
        return {
            "where": self.change_at.where,
            "source": code_only(self.change_at.source or ""),
            "function": self.change_at.function,
            "site_source": site_source,
            "site_where": location.where,
            "site_function": location.function,
            "gb_type": first.gb_type,
            "library": self.index.code.package_name(owner.file) if self.origin != USER else None,
            "caller": self.user_frame.where
            if self.user_frame
            else (self.call_sites[0] if self.call_sites else location.where),
            "torch_explanation": first.explanation or (entry.explanation if entry else ""),
            "torch_hints": _sentences(first.hints or (entry.hints if entry else ())) or None,
            "hint_class": _HINT_CLASS_WORDS.get((entry.hint_class if entry else None) or ""),
            "gb_page": gb_page(first.gb_id or (entry.gb_id if entry else None)),
            "skipped_function": skipped[0] or None,
            "skipped_library": skipped[2],
            "scheduler_wrapped_step": skipped[0] if skipped[3].endswith("/torch/optim/lr_scheduler.py") else None,
            **_logger_facts(first.logger_call, self.function if first.file.endswith(_LOGGING_MODULE) else None),
            **_exception_facts(self.index.code, self.first, site_source),
            **_router_facts(f"{location.function} {site_source}"),
            "regional": _regional_advice(self.index, self.records),
        }

    def fields(self, rule: Rule, facts: dict) -> dict:
        """Everything but the rule that a break finding (or the skip it caused) is built from."""
        records, first, entry = self.records, self.first, self.entry
        compile_ids = {r.compile_id for r in records if r.compile_id is not None}
        return dict(
            location=self.location,
            facts=facts,
            fix_line=self.index.raw_line(self.change_at.file, self.change_at.line),
            gb_id=first.gb_id or (entry.gb_id if entry else None),
            gb_type=first.gb_type,
            category=rule.category,
            origin=self.origin,
            count=len(records),
            call_sites=self.call_sites,
            user_frame=self.user_frame,
            torch_says=facts["torch_explanation"] or None,
            impact=BreakImpact(
                occurrences=len(records),
                compiles=len(compile_ids),
                recompiles_caused=self.index.recompiles_of_resume(self.function, first.line),
                compile_seconds=self.index.compile_seconds(compile_ids),
            ),
            evidence=BreakEvidence(
                compile_ids=sorted(str(c) for c in compile_ids),
                secondary_gb_ids=sorted({g for r in records for g in r.secondary_gb_ids}),
                hint_class=entry.hint_class if entry else None,
                torch_text=without_doctor_frames(self.text.strip())[:2000],
            ),
        )

    @cached_property
    def rule(self) -> Rule:
        """The catalogue rule the break matches (by GB id, gb_type, torch's text, the construct around it and
        whose code it is), worded for where the line is."""
        gb_id = self.first.gb_id or (self.entry.gb_id if self.entry else None)
        matched = rule_for_break(
            gb_id,
            self.first.gb_type,
            self.text,
            origin=self.origin,
            owner_file=self.owner[0].file,
            skipped_origin=_skipped_call(self.index.code, self.first)[1],
        )
        return matched.worded_for(self.origin, self.facts())

    def finding(self) -> Finding:
        rule = self.rule
        return finding_from_rule(rule, **self.fields(rule, self.facts()))
