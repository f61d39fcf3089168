"""A source file parsed one piece at a time, so that a library file of thousands of lines never has its whole
syntax tree in memory at once (transformers' modeling_utils.py: 14 MB of tree objects): the module is cut before
each line that starts a `def`, a class or a decorator at column 0, and a class's body before each such line at its
members' indentation; each piece is parsed alone, numbered as in the file.

A cut inside a string, brackets or a continued line leaves the piece before it unfinished, which does not parse:
that piece is joined to the next one and parsed again (after a few joins, the rest of the file or class is parsed in
one go). Every other cut is a boundary between whole statements, so the pieces parse exactly when the file does,
into the same statements."""

from __future__ import annotations

import ast
import re
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass

_STARTS_DEF = re.compile(r"(?:async[ \t]+def|def|class)[ \t]|@")
_CLASS = re.compile(r"class[ \t]")
_JOINS = 4  # pieces joined to an unfinished one before the rest is parsed in one go


class Unparsable(Exception):
    """The file (or a class's body) does not parse."""


@dataclass(frozen=True)
class Statements:
    """Statements of the file in order: the module's own, or those of a class body (`prefix`: `Block.`)."""

    statements: list[ast.stmt]
    prefix: str


@dataclass(frozen=True)
class ClassStart:
    """A module-level class parsed apart from its members: its decorators and bases, and the statements before its
    first member (`body`). Its members follow as Statements, then its ClassEnd."""

    node: ast.ClassDef
    body: list[ast.stmt]


@dataclass(frozen=True)
class ClassEnd:
    end: int  # the class's last line: that of its last member


@dataclass(frozen=True)
class Rollback:
    """A member of the class last started did not parse apart (a cut inside a string that runs past the class):
    forget what came since its ClassStart; the class comes again, parsed whole."""


Piece = Statements | ClassStart | ClassEnd | Rollback


def pieces(lines: Sequence[str]) -> Iterator[Piece]:
    """The file's statements piece by piece; raises Unparsable when the file does not parse."""
    joined_by = "" if lines and lines[0].endswith("\n") else "\n"
    cuts = _cuts(lines, 0, len(lines), "")
    first = 0
    while first < len(cuts) - 1:
        if (yield from _class_pieces(lines, cuts[first], cuts[first + 1], joined_by)):
            first += 1
            continue
        statements, last = _statements_from(lines, cuts, first, joined_by, wrapped=False)
        yield Statements(statements, "")
        first = last


def _class_pieces(lines: Sequence[str], start: int, end: int, joined_by: str) -> Generator[Piece, None, bool]:
    """A class alone in [start, end), member by member; False (nothing or a Rollback yielded) where it is no such
    class or a member does not parse apart."""
    head = _class_head(lines, start, end, joined_by)
    if head is None:
        return False
    node, members_at = head
    yield ClassStart(node, node.body[:-1])  # the `pass` put after the statements before the first member
    indent = lines[members_at][: len(lines[members_at]) - len(lines[members_at].lstrip())]
    cuts = _cuts(lines, members_at, end, indent)
    last_statement: ast.stmt | None = node.body[-2] if len(node.body) > 1 else None
    first, after = 0, list[ast.stmt]()
    while first < len(cuts) - 1:
        try:
            parsed, last = _statements_from(lines, cuts, first, joined_by, wrapped=True)
        except Unparsable:
            parsed, last = [], -1
        stand_in, after = parsed[0] if parsed else None, parsed[1:]
        # statements after the stand-in: the class ended inside this span, which must then be its last
        if not isinstance(stand_in, ast.ClassDef) or (after and last != len(cuts) - 1):
            yield Rollback()
            return False
        yield Statements(stand_in.body, f"{node.name}.")
        last_statement = stand_in.body[-1]
        first = last
    if last_statement is None:
        yield Rollback()
        return False
    yield ClassEnd(last_statement.end_lineno or last_statement.lineno)
    if after:  # the module's statements after the class, to the next cut
        yield Statements(after, "")
    return True


def _statements_from(
    lines: Sequence[str], cuts: list[int], first: int, joined_by: str, wrapped: bool
) -> tuple[list[ast.stmt], int]:
    """The statements from cuts[first] to the nearest cut they end at, and that cut's index."""
    for last in range(first + 1, min(first + _JOINS, len(cuts) - 1) + 1):
        found = _parse(lines, cuts[first], cuts[last], joined_by, wrapped)
        if found is not None:
            return found, last
    last = len(cuts) - 1
    found = _parse(lines, cuts[first], cuts[last], joined_by, wrapped) if last > first + _JOINS else None
    if found is None:
        raise Unparsable
    return found, last


def _cuts(lines: Sequence[str], start: int, end: int, indent: str) -> list[int]:
    """Where pieces may start: each line at `indent` that starts a def, a class or a decorator (not the lines
    right after a decorator), and the end."""
    width = len(indent)
    found = [start]
    for index in range(start + 1, end):
        line = lines[index]
        if (
            line.startswith(indent)
            and line[width : width + 1] not in (" ", "\t")
            and _STARTS_DEF.match(line, width)
            and not lines[index - 1].startswith(f"{indent}@")
        ):
            found.append(index)
    return [*found, end]


def _parse(lines: Sequence[str], start: int, end: int, joined_by: str, wrapped: bool) -> list[ast.stmt] | None:
    """The statements of lines [start, end), numbered as in the file; a class body's members inside a stand-in
    class on the line before them (where the class ends before `end`, the module's statements follow it). None
    when they do not parse."""
    text = joined_by.join(lines[start:end])
    source = "\n" * (start - 1) + "class _:\n" + text if wrapped else "\n" * start + text
    try:
        module = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    return module.body  # wrapped: the stand-in class first, then the module's statements after the class, if any


def _class_head(lines: Sequence[str], start: int, end: int, joined_by: str) -> tuple[ast.ClassDef, int] | None:
    """A module-level class alone in [start, end) with members to parse apart: the class with the statements
    before its first member (and a `pass`), and the line its first member starts on; None otherwise."""
    header = next((i for i in range(start, end) if not lines[i].startswith("@")), end)
    if header >= end or not _CLASS.match(lines[header]):
        return None
    inner = [i for i in range(header + 1, end) if lines[i].strip() and not lines[i].lstrip().startswith("#")]
    if not inner:
        return None
    first_line = lines[inner[0]]
    indent = first_line[: len(first_line) - len(first_line.lstrip())]
    members = _cuts(lines, header, end, indent)[1:-1] if indent else []
    if not members:
        return None
    head = _parse_head(lines, start, members[0], indent, joined_by)
    return (head, members[0]) if head is not None else None


def _parse_head(lines: Sequence[str], start: int, stop: int, indent: str, joined_by: str) -> ast.ClassDef | None:
    text = joined_by.join(lines[start:stop])
    source = "\n" * start + text + ("" if text.endswith("\n") else "\n") + f"{indent}pass\n"
    try:
        module = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    node = module.body[0] if len(module.body) == 1 else None
    return node if isinstance(node, ast.ClassDef) else None
