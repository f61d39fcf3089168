"""The `graph_breaks` and `recompiles` artifacts as a text log shows them: the same facts TORCH_TRACE records as
`dynamo_graph_break_reason` and `recompile_reasons`, made into the same events (a job's log without its trace
still reads). Wordings from torch/_dynamo/symbolic_convert.py and guards.py (2.11, 2.13)."""

from __future__ import annotations

import re

from torchcompile_doctor.events.messages.base import KNOWN, LogMessage, MessageParser
from torchcompile_doctor.events.model import GraphBreak, Recompile
from torchcompile_doctor.events.parsers.graph_break_reason import parse_graph_break_text

_SUPPRESSED = "Graph break (user stack suppressed due to duplicate graph break) in user code at "


def _graph_break(message: LogMessage, match: re.Match[str]) -> GraphBreak | None:
    # a break seen before is logged without its user stack; its header is otherwise the usual one
    text = message.text.replace(_SUPPRESSED, "Graph break in user code at ", 1)
    return parse_graph_break_text(text, message.compile_id, raw=message.text)


_ENTRY = re.compile(r"^ {4}- (?P<id>\d+/\d+: )")


def _recompile(message: LogMessage, match: re.Match[str]) -> Recompile | None:
    """Each failure starts `    - 0/1: ...`; a failure's further lines are indented `    - ` too (textwrap)."""
    failures: list[list[str]] = []
    for line in message.text.split("\n")[2:]:
        entry = _ENTRY.match(line)
        if entry is not None:
            failures.append([line[entry.start("id") :]])
        elif failures and line.startswith("    - "):
            failures[-1].append(line[len("    - ") :])
    if not failures:
        return None
    frame = (match["file"], int(match["line"]), match["function"])
    return Recompile.of(message.compile_id, tuple("\n".join(lines) for lines in failures), frame)


GRAPH_BREAKS = frozenset({"graph_breaks"})
PARSERS = [
    MessageParser(
        "graph_break",
        GRAPH_BREAKS,
        re.compile(
            r"^Graph break (?:\(user stack suppressed due to duplicate graph break\) )?in user code at "
            r"|^Graph break: torch\.compile cannot properly resume"
        ),
        _graph_break,
    ),
    MessageParser(
        "recompile",
        frozenset({"recompiles", "recompiles_verbose"}),
        re.compile(r"^Recompiling function (?P<function>\S+) in (?P<file>.+):(?P<line>\d+)$", re.M),
        _recompile,
    ),
    # the warning a plain logger prints with the break (`Graph break from `Tensor.item()`, consider setting:`):
    # the graph_breaks record says the same
    MessageParser("graph_break_warning", frozenset({None}), re.compile(r"^Graph break from "), lambda m, _: KNOWN),
]
