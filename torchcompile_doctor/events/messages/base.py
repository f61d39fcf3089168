"""What the message parsers read and return (the registry and the reader are in __init__.py)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from torchcompile_doctor.events.model import CompileId

# What a parser returns for a record it knows that carries nothing the doctor uses (not an unknown record).
KNOWN = object()


@dataclass(frozen=True)
class LogMessage:
    """One record torch logged: the module that logged it (`torch._inductor.scheduler`), its artifact
    (`cudagraphs`; None for a plain logger), its level name, the compile it belongs to, and its text."""

    module: str
    artifact: str | None
    level: str
    compile_id: CompileId | None
    text: str


@dataclass(frozen=True)
class ShownWarning:
    """A warning as Python showed it: `file:line: Category: message`."""

    category: str
    message: str
    file: str
    line: int


@dataclass(frozen=True)
class MessageParser:
    name: str
    artifacts: frozenset[str | None]
    start: re.Pattern[str]
    parse: Callable[[LogMessage, re.Match[str]], object | None]  # an event, KNOWN, or None (did not parse)


_BRACKETED_ID = re.compile(r"^\[(?P<id>[^\]]*)\] ")


def compile_id_in_text(text: str, default: CompileId | None) -> tuple[CompileId | None, str]:
    """cudagraph_trees writes the compile id into its message (`[0/0] Running ...`): that id, and the rest."""
    match = _BRACKETED_ID.match(text)
    if match is None:
        return default, text
    return CompileId.parse(match["id"].partition("_")[0]) or default, text[match.end() :]
