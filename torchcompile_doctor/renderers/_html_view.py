"""The HTML page's view of the findings: typed records computed from a Report, so the template only lays them out.
Every fact the terminal report gives a finding is here (its figures, the user's line and its text, the GB id,
before/after, the measured effect of a fix, what changed); a paragraph an earlier finding already said is
replaced by a link to it. Pure: nothing here reads files or the clock."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from markupsafe import Markup, escape

from torchcompile_doctor.model.report import SEVERITIES, Finding, Kind, Location, Report, rank_list
from torchcompile_doctor.renderers._text import (
    at_your_code,
    clean_for_display,
    finding_figures,
    measurement_label,
    summary_line,
)

_CODE_SPAN = re.compile(r"`([^`]+)`")
OPEN_SEVERITIES = ("critical", "high", "medium")  # shown unfolded; low and info start folded
# findings about a whole compiled frame: the lines around its `def` say nothing about them, so none are shown
FRAME_KINDS = frozenset({Kind.COMPILE_TIME, Kind.PERF_HINT, Kind.GUARD_COST, Kind.NOTHING_COMPILED, Kind.DDP_SPLIT})

Shown = Callable[[str], str]  # text made shareable (renderers/_shareable.py)


def prose(text: str, shown: Shown) -> Markup:
    """Our prose with its `code` spans set as <code>; everything else escaped (the span's text too)."""
    text = shown(clean_for_display(text))
    parts, last = [], 0
    for span in _CODE_SPAN.finditer(text):
        parts += [escape(text[last : span.start()]), Markup("<code>%s</code>") % span.group(1)]
        last = span.end()
    parts.append(escape(text[last:]))
    return Markup("").join(parts)


def verbatim(text: str) -> Markup:
    """The user's own code as written (escaped, and kept out of the page's path rewriting)."""
    return escape(clean_for_display(text).expandtabs(4))


@dataclass(frozen=True)
class SourceLine:
    number: int
    text: Markup
    marked: bool


@dataclass(frozen=True)
class Said:
    """A paragraph of a finding, or the rank of the earlier finding that said the same (`same_as`)."""

    text: Markup | str
    same_as: int | None = None


@dataclass(frozen=True)
class FindingView:
    rank: int
    code: str
    kind: str
    severity: str
    title: Markup
    open: bool
    figures: str
    where: str | None
    function: str | None
    tags: str  # GB id and cause: "GB0007 · unsupported_builtin_or_c_function"
    ranks: str | None  # on which ranks, in a multi-rank report
    gate_failure: str | None
    context: tuple[SourceLine, ...]
    reached_from: str | None  # the user's line a library break was reached from
    reached_source: Markup | None
    called_from: str | None  # several call sites
    why: Said
    torch_says: Said | None
    changes: tuple[str, ...]
    fix: Said | None
    before: Markup | None
    after: Markup | None
    verified_change: str | None
    verified: str | None
    verified_effect: str | None
    measurement: str | None  # what stands behind a fix this run did not measure
    docs_url: str | None


def _context(location: Location | None, kind: str) -> tuple[SourceLine, ...]:
    """The source lines around the finding's line, that line marked; none for a finding about a whole frame."""
    if location is None or kind in FRAME_KINDS:
        return ()
    if not location.context and location.source:
        return (SourceLine(location.line, verbatim(location.source), True),)
    return tuple(SourceLine(n, verbatim(text), n == location.line) for n, text in location.context)


class _SaidOnce:
    """Remembers which finding first said a paragraph, so later findings link to it instead of repeating it."""

    def __init__(self) -> None:
        self._first: dict[tuple[str, str], int] = {}

    def say(self, field: str, text: str, rank: int, markup: Markup | str) -> Said:
        first = self._first.setdefault((field, text), rank)
        return Said(markup) if first == rank else Said("", same_as=first)


def _verified(finding: Finding, shown: Shown) -> tuple[str | None, str | None, str | None]:
    verified = finding.fix.verified if finding.fix else None
    if verified is None:
        return None, None, None
    return shown(clean_for_display(verified.change)), shown(clean_for_display(summary_line(verified))), verified.effect


def _reached(finding: Finding, shown: Shown) -> tuple[str | None, Markup | None, str | None]:
    """(the user's line a library break was reached from, its text, or the call sites when there are several)."""
    frame = finding.user_frame
    if frame is not None:
        return frame.where, verbatim(frame.shown_source), None
    if len(finding.call_sites) > 1:
        return None, None, f"{len(finding.call_sites)} sites: " + ", ".join(shown(s) for s in finding.call_sites)
    return None, None, None


def _ranks(finding: Finding, report: Report) -> str | None:
    """On which ranks, in a multi-rank report: `0, 2 of 4`, `0-3 (all)`."""
    all_ranks = tuple(row.rank for row in report.rank_table)
    if len(all_ranks) <= 1:
        return None
    every = " (all)" if set(finding.ranks) == set(all_ranks) else f" of {len(all_ranks)}"
    return rank_list(finding.ranks) + every


def _fix(finding: Finding, said: _SaidOnce, shown: Shown) -> tuple[Said | None, Markup | None, Markup | None]:
    """(the fix, the code before it and after it, when the rule gives both)."""
    fix = finding.fix
    if fix is None:
        return None, None, None
    summary = said.say("fix", fix.summary, finding.rank, prose(fix.summary, shown))
    if not (fix.before and fix.after):
        return summary, None, None
    return summary, verbatim(fix.before), verbatim(fix.after)


def _torch_says(finding: Finding, said: _SaidOnce, shown: Shown) -> Said | None:
    if not finding.torch_says:
        return None
    text = clean_for_display(finding.torch_says)
    return said.say("torch", text, finding.rank, shown(text))


def _measurement(finding: Finding, shown: Shown) -> str | None:
    label = measurement_label(finding.fix) if finding.fix else None
    return shown(label) if label else None


def finding_view(finding: Finding, report: Report, said: _SaidOnce, shown: Shown) -> FindingView:
    location = finding.location
    reached_from, reached_source, called_from = _reached(finding, shown)
    change, verified, effect = _verified(finding, shown)
    fix, before, after = _fix(finding, said, shown)
    return FindingView(
        rank=finding.rank,
        code=finding.code,
        kind=finding.kind,
        severity=finding.severity,
        title=prose(finding.title, shown),
        open=finding.severity in OPEN_SEVERITIES,
        figures=finding_figures(finding, report.summary.compile_time_s),
        where=location.where if location else None,
        function=location.function if location else None,
        tags=" · ".join(t for t in (finding.gb_id, finding.category or finding.reason_class) if t),
        ranks=_ranks(finding, report),
        gate_failure=report.gate.reason_for(finding) if report.gate else None,
        context=_context(location, finding.kind),
        reached_from=reached_from,
        reached_source=reached_source,
        called_from=called_from,
        why=said.say("why", finding.why, finding.rank, prose(finding.why, shown)),
        torch_says=_torch_says(finding, said, shown),
        changes=tuple(shown(clean_for_display(c)) for c in finding.changes),
        fix=fix,
        before=before,
        after=after,
        verified_change=change,
        verified=verified,
        verified_effect=effect,
        measurement=_measurement(finding, shown),
        docs_url=finding.docs_url if finding.docs_url and finding.docs_url.startswith("https://") else None,
    )


def finding_views(report: Report, shown: Shown) -> tuple[FindingView, ...]:
    said = _SaidOnce()
    return tuple(finding_view(finding, report, said, shown) for finding in report.findings)


@dataclass(frozen=True)
class Tally:
    severity: str
    count: int
    first_rank: int  # the tally links to its first finding


def tally(report: Report) -> tuple[Tally, ...]:
    out = []
    for severity in SEVERITIES:
        ranks = [f.rank for f in report.findings if f.severity == severity]
        if ranks:
            out.append(Tally(severity, len(ranks), min(ranks)))
    return tuple(out)


@dataclass(frozen=True)
class RewriteView:
    """A line of the page's lead, "At your code": a finding whose fix rewrites a line of the user's, at that
    line (renderers/_text.py's Rewrite), the code as written."""

    rank: int
    code: str
    where: str  # the rewritten line's `file:line`, made shareable
    before: Markup
    code_after: Markup | None  # the rewrite's first line of code, where it changes the line
    moved_to: Markup | None  # else where the rewrite moves the line to


def rewrite_views(report: Report, shown: Shown) -> tuple[RewriteView, ...]:
    """The page's lead: empty where it would repeat the list of findings (as in the terminal report)."""
    return tuple(
        RewriteView(
            rank=rewrite.rank,
            code=rewrite.code,
            where=shown(clean_for_display(rewrite.where)),
            before=verbatim(rewrite.before),
            code_after=verbatim(rewrite.code_after) if rewrite.code_after is not None else None,
            moved_to=verbatim(rewrite.moved_to) if rewrite.moved_to is not None else None,
        )
        for rewrite in at_your_code(report)
    )
