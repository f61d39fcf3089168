"""Graph breaks (TCD1xx): breaks grouped by (gb_type, file, line), each worded by the catalogue rule its
GB id or text matches. A site whose break made torch skip a frame is the fallback detector's
(detectors/fallbacks.py), which builds on the same BreakSite."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace

from torchcompile_doctor.analysis.findings import finding_from_rule
from torchcompile_doctor.analysis.graph_break_registry import RegistryEntry
from torchcompile_doctor.analysis.index import AnalysisIndex
from torchcompile_doctor.events.model import GraphBreak
from torchcompile_doctor.finding_data import BreakEvidence, BreakImpact
from torchcompile_doctor.report import Finding, Location
from torchcompile_doctor.rules import Rule, rule_for_break

_POLYFILLS = "/torch/_dynamo/polyfills/"
_TRACEBACK = "\nTraceback (most recent call last):"

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
        text = first.raw.split(_TRACEBACK)[0]
        site_frame = next(
            (f for f in reversed(first.user_stack) if f.file == first.file and f.line == first.line), None
        )
        function = site_frame.function if site_frame else "?"
        code = index.code
        in_library = code.is_library(first.file)
        call_sites: list[str] = []
        for record in records:
            caller = index.call_site(record.user_stack, record.file, record.line, in_library)
            if caller and caller not in call_sites:
                call_sites.append(caller)
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
            call_sites=tuple(call_sites),
        )

    @property
    def change_at(self) -> Location:
        """Inside library code the line to change is the user's call into it."""
        return self.user_frame or self.location

    def facts(self) -> dict:
        first, entry, location = self.first, self.entry, self.location
        in_library = self.index.code.is_library(first.file)
        return {
            "where": self.change_at.where,
            "source": self.change_at.source or "",
            "function": self.change_at.function,
            "site_source": location.source or "",
            "gb_type": first.gb_type,
            "library": location.display_file.split("/")[0] if in_library else None,
            "caller": self.user_frame.where
            if self.user_frame
            else (self.call_sites[0] if self.call_sites else location.where),
            "torch_explanation": first.explanation or (entry.explanation if entry else ""),
            "torch_hints": " ".join(first.hints or (entry.hints if entry else ())) or "see the GB page",
            "hint_class": _HINT_CLASS_WORDS.get((entry.hint_class if entry else None) or "", "not classified by torch"),
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
                torch_text=self.text.strip()[:2000],
            ),
        )

    @property
    def rule(self) -> Rule:
        """The catalogue rule the break matches (by GB id, gb_type and torch's text)."""
        third_party = self.index.code.is_third_party(self.first.file)
        gb_id = self.first.gb_id or (self.entry.gb_id if self.entry else None)
        return rule_for_break(gb_id, self.first.gb_type, self.text, third_party)

    def finding(self) -> Finding:
        rule = self.rule
        return finding_from_rule(rule, **self.fields(rule, self.facts()))
