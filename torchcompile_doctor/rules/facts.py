"""What a finding's templates may name: each detector declares a Facts class (a frozen dataclass) whose fields are
the `{placeholders}` its rules' titles, texts, wordings and experiments use; the catalogue's binding
(rules/binding.py) refuses a placeholder that is no field. `fill` puts the facts into a template: a fact that is
None stays `{name}` in the text, as it was written; a line of code this machine does not have (a log recorded
elsewhere) is said to be not available, never quoted as empty backticks."""

from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace

from torchcompile_doctor.model.report import SOURCE_NOT_AVAILABLE

PLACEHOLDER = re.compile(r"\{(\w+)\}")
SOURCE_FACTS = ("source", "site_source")  # a line's text, read from its file


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
    known = facts.known()
    for name in SOURCE_FACTS:
        if isinstance(known.get(name), str) and not str(known[name]).strip():  # known to be a line, text not here
            template = template.replace(f"`{{{name}}}`", f"({SOURCE_NOT_AVAILABLE})")
            known[name] = SOURCE_NOT_AVAILABLE
    return template.format_map(_Template(known))
