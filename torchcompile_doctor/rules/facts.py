"""What a finding's templates may name: each detector declares a Facts class (a frozen dataclass) whose fields are
the `{placeholders}` its rules' titles, texts, wordings and experiments use; the catalogue's binding
(rules/binding.py) refuses a placeholder that is no field. `fill` puts the facts into a template: a fact that is
None stays `{name}` in the text, as it was written (a detector's text filled again later); a line of code this
machine does not have (a log recorded elsewhere) is said to be not available, never quoted as empty backticks. What
people read goes through `worded`: a fact nobody knows is worded generically ("the function"), so no raw `{name}`
reaches them."""

from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace

from torchcompile_doctor.model.report import SOURCE_NOT_AVAILABLE

PLACEHOLDER = re.compile(r"\{(\w+)\}")
SOURCE_FACTS = ("source", "site_source")  # a line's text, read from its file
# a placeholder alone in a code span (`{function}`), or anywhere else
_WORDED_PLACEHOLDER = re.compile(r"`\{(\w+)\}`|\{(\w+)\}")
# a word after which a generic "the function" drops its "the": "each `{function}` call", "the optimizer's `{x}`"
_DETERMINER = re.compile(r"(?:\b(?:the|each|every|a|an|its|their|your|this|that|global)|'s)\s*`?$", re.IGNORECASE)
# How a fact nobody knows is worded in prose (a rule's help, a finding whose detector lacked it); any other name
# reads as "the NAME". Empty: a sentence offered only where it was worked out (regional compilation's module list).
GENERIC_WORDS: dict[str, str] = {
    "where": "that line",
    "site_where": "that line",
    "source": "the line",
    "site_source": "the line",
    "caller": "your line",
    "logger_method": "the logging method",
    "logger_added_by": "the code that added the logger's handler",
    "branched_argument": "the argument",
    "none_argument": "the argument",
    "none_argument_value": "a value",
    "passed": "the argument",
    "item_if": "the condition",
    "gb_page": "torch's page for the break",
    "torch_hints": "torch's hints for the break (`doctor explain` shows them)",
    "code": "other",
    "cause_fix": "the cause's own fix",
    "break_fix": "the break's own fix",
    "share": "a large share",
    "phase": "one phase",
    "present": "some ranks",
    "counts": "different counts",
    "backend": "the compile",
    "op": "an op",
    # numbers, as documentation writes one it does not know
    "guards": "N",
    "count": "N",
    "rank": "N",
    "repeats": "N",
    "subgraphs": "N",
    "sizes": "N",
    "seconds": "N",
    "saved": "N",
    # sentences and clauses offered only where they were worked out
    "in_function": "",
    "and_more": "",
    "regional": "",
    "router_loop": "",
    "router_rewrite": "",
    "fullgraph_hint": "",
    "advice": "",
}


def placeholders(text: str) -> set[str]:
    return set(PLACEHOLDER.findall(text))


@dataclass(frozen=True, kw_only=True)
class Facts:
    """The facts every finding has: where it stands (`file:line`), that line's code and its function, filled from
    the finding's location when the detector does not say otherwise."""

    where: str | None = None
    source: str | None = None
    function: str | None = None

    @classmethod
    def names(cls) -> frozenset[str]:
        """The placeholders these facts can fill."""
        return frozenset(f.name for f in fields(cls))

    def get(self, name: str) -> object:
        """The fact of that name (None: not known); the catalogue's names, checked when it loads."""
        return getattr(self, name, None)

    def known(self) -> dict[str, object]:
        return {f.name: value for f in fields(self) if (value := getattr(self, f.name)) is not None}

    def at(self, where: str, source: str, function: str) -> Facts:
        """These facts with the finding's place, where the detector gave none."""
        return replace(
            self,
            where=self.where if self.where is not None else where,
            source=self.source if self.source is not None else source,
            function=self.function if self.function is not None else function,
        )


class _Template(dict[str, object]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def fill(template: str, facts: Facts) -> str:
    """A rule template with the facts it names; a fact nobody knows stays `{name}`, a line of code not on this
    machine reads "(source not available here)"."""
    template, known = _with_sources(template, facts.known())
    return template.format_map(_Template(known))


def _with_sources(template: str, known: dict[str, object]) -> tuple[str, dict[str, object]]:
    """A line of code known to be a line but whose text is not on this machine: said so, not quoted empty."""
    for name in SOURCE_FACTS:
        if isinstance(known.get(name), str) and not str(known[name]).strip():
            template = template.replace(f"`{{{name}}}`", f"({SOURCE_NOT_AVAILABLE})")
            known[name] = SOURCE_NOT_AVAILABLE
    return template, known


def generic_word(name: str) -> str:
    """A placeholder worded for a reader who has no finding: `function` -> "the function"."""
    return GENERIC_WORDS.get(name, "the " + name.replace("_", " "))


def worded(template: str, facts: Facts | None = None) -> str:
    """A rule template as people read it: each placeholder its fact where known, else worded generically
    (`generic_word`; inside a longer code span `<name>`, as a code example marks what to fill in). Never a raw
    `{name}`; a line of code not on this machine reads "(source not available here)"."""
    template, known = _with_sources(template, facts.known() if facts is not None else {})

    def one(match: re.Match[str]) -> str:
        name = match[1] or match[2]
        if name in known:
            return f"`{known[name]}`" if match[1] else str(known[name])
        before = template[: match.start()]
        if not match[1] and before.count("`") % 2 == 1:
            return f"<{name.replace('_', ' ')}>"
        word = generic_word(name)
        return word.removeprefix("the ") if _DETERMINER.search(before) else word

    return _WORDED_PLACEHOLDER.sub(one, template)
