"""The `def`s of source files, read once per report: the function a code object comes from, the one around a
line, its qualified name (`Block.forward`, `f.<locals>.g`) and the parameters it defaults to None.

A file is parsed once, piece by piece (source_pieces.py), into an outline of its `def`s and classes (lines, names);
no syntax tree is kept (a library file's tree is megabytes of Python objects). Where a caller needs a function's
own tree, only that function's lines are parsed again, once."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from torchcompile_doctor.analysis.source_pieces import (
    ClassEnd,
    ClassStart,
    Piece,
    Rollback,
    Statements,
    Unparsable,
    pieces,
)

RESUME = re.compile(r"^torch_dynamo_resume_in_(?P<function>.+)_at_(?P<line>\d+)$")

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class DefLines:
    """One `def` or `class` reached from the module through `def`s and classes only (not one inside an `if`)."""

    start: int  # its first line, decorators included
    line: int  # the line of `def` / `class`
    end: int
    name: str
    qualified: str  # `Block.forward`, `f.<locals>.g`
    is_class: bool


Scope = tuple[str, int, int, int]  # a `def` or class anywhere: (name, first line with decorators, its line, last line)


@dataclass(frozen=True)
class FileOutline:
    """What the analysis reads of a file's syntax tree, kept instead of the tree."""

    nested: tuple[DefLines, ...]  # in the order a depth-first walk meets them (ties go to the later one)
    scopes: tuple[Scope, ...]  # every `def` and class anywhere in the file
    # every `def` anywhere in the file: (its line, its end, its parameters defaulting to None)
    none_defaults: tuple[tuple[int, int, tuple[str, ...]], ...]


def file_outline(lines: Sequence[str] | None) -> FileOutline | None:
    """The outline of a file's lines, parsed piece by piece (source_pieces.py); None when they do not parse."""
    if not lines:
        return None
    builder = _OutlineBuilder()
    try:
        for piece in pieces(lines):
            builder.add(piece)
    except Unparsable:
        return None
    return FileOutline(tuple(builder.nested), tuple(builder.scopes), tuple(builder.none_defaults))


class _OutlineBuilder:
    """The outline, filled as the pieces of a file come."""

    def __init__(self) -> None:
        self.nested: list[DefLines] = []
        self.scopes: list[Scope] = []
        self.none_defaults: list[tuple[int, int, tuple[str, ...]]] = []
        self._class: tuple[ast.ClassDef, int, int, int] | None = None  # the class started, and where it started

    def add(self, piece: Piece) -> None:
        if isinstance(piece, Statements):
            self._statements(piece.statements, piece.prefix)
        elif isinstance(piece, ClassStart):
            self._class = (piece.node, len(self.nested), len(self.scopes), len(self.none_defaults))
            self._statements(piece.body, f"{piece.node.name}.")
        elif isinstance(piece, ClassEnd) and self._class is not None:
            node, at = self._class[:2]
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            self.nested.insert(at, DefLines(start, node.lineno, piece.end, node.name, node.name, True))
            self.scopes.append((node.name, start, node.lineno, piece.end))
            self._class = None
        elif isinstance(piece, Rollback) and self._class is not None:
            _, nested, scopes, none_defaults = self._class
            del self.nested[nested:], self.scopes[scopes:], self.none_defaults[none_defaults:]
            self._class = None

    def _statements(self, statements: list[ast.stmt], prefix: str) -> None:
        self.nested += _nested_defs(statements, prefix)
        for node in _all_statements(statements):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                start = min([node.lineno] + [d.lineno for d in node.decorator_list])
                end = node.end_lineno or node.lineno
                self.scopes.append((node.name, start, node.lineno, end))
                if not isinstance(node, ast.ClassDef):
                    self.none_defaults.append((node.lineno, end, _none_default_parameters(node)))


class Outlines:
    """Each file's outline, parsed once per report and shared by the reader that checks a file against the trace
    (source_check.py) and the lookups here (a file may be thousands of lines)."""

    def __init__(self) -> None:
        self._by_file: dict[str, FileOutline | None] = {}

    def of(self, file: str, lines: Sequence[str]) -> FileOutline | None:
        if file not in self._by_file:
            self._by_file[file] = file_outline(lines)
        return self._by_file[file]


class FunctionDefs:
    def __init__(self, lines: Callable[[str], Sequence[str] | None], outlines: Outlines | None = None) -> None:
        self._lines = lines
        self._outlines = outlines or Outlines()
        self._found: dict[tuple[str, str, int], DefLines | None] = {}
        self._nodes: dict[tuple[str, int], FunctionNode | None] = {}

    def function_node(self, file: str, co_name: str, line: int) -> FunctionNode | None:
        """The `def` of torch's code object (co_name, co_firstlineno); for a resume function, the `def` it
        resumes; None for comprehensions, lambdas and unreadable files."""
        resume = RESUME.match(co_name)
        if resume:
            co_name, line = resume["function"], int(resume["line"])
        found = self.find_def(file, co_name, line)
        return self._node(file, found) if found else None

    def enclosing_function(self, file: str, line: int) -> str | None:
        """The qualified name of the innermost `def` whose body holds `line` (None at module level)."""
        index = self._index(file)
        best: DefLines | None = None
        for found in index.nested if index else ():
            if not found.is_class and found.line <= line <= found.end and (best is None or found.line >= best.line):
                best = found
        return best.qualified if best else None

    def find_def(self, file: str, function: str, line: int) -> DefLines | None:
        """The innermost `def function` whose lines (decorators included) hold `line`."""
        key = (file, function, line)
        if key not in self._found:
            index = self._index(file)
            best: DefLines | None = None
            for found in index.nested if index else ():
                inside = found.name == function and found.start <= line <= found.end
                if inside and not found.is_class and (best is None or found.start >= best.start):
                    best = found
            self._found[key] = best
        return self._found[key]

    def sibling_method(self, file: str, function_line: int, name: str) -> FunctionNode | None:
        """The method `name` of the class whose method starts at `function_line` (a module's `__init__`, seen
        from its `forward`)."""
        index = self._index(file)
        own = [f for f in (index.nested if index else ()) if not f.is_class and function_line in (f.start, f.line)]
        if index is None or not own or "." not in own[0].qualified:
            return None
        wanted = own[0].qualified.rsplit(".", 1)[0] + "." + name
        found = next((f for f in index.nested if f.qualified == wanted and not f.is_class), None)
        return self._node(file, found) if found else None

    def tree(self, file: str) -> ast.Module | None:
        """The whole file's syntax tree, parsed afresh for a caller that reads it once (not kept)."""
        return _parse(self._lines(file))

    def none_default_parameters(self, file: str, line: int) -> tuple[str, ...]:
        """The parameters defaulting to None of the innermost function around `line` (what a caller may
        leave out, such as `attention_mask=None`)."""
        index = self._index(file)
        around = [entry for entry in (index.none_defaults if index else ()) if entry[0] <= line <= entry[1]]
        return max(around, key=lambda entry: entry[0])[2] if around else ()

    def _index(self, file: str) -> FileOutline | None:
        lines = self._lines(file)
        return self._outlines.of(file, lines) if lines else None

    def _node(self, file: str, found: DefLines) -> FunctionNode | None:
        key = (file, found.start)
        if key not in self._nodes:
            self._nodes[key] = _parse_def(self._lines(file) or (), found)
        return self._nodes[key]


def _joined(lines: Sequence[str]) -> str:
    return "".join(lines) if lines and lines[0].endswith("\n") else "\n".join(lines)


def _parse(lines: Sequence[str] | None) -> ast.Module | None:
    if not lines:
        return None
    try:
        return ast.parse(_joined(lines))
    except (SyntaxError, ValueError):
        return None


def _nested_defs(statements: list[ast.stmt], prefix: str) -> list[DefLines]:
    """The `def`s and classes reached through `def`s and classes, depth first, with their qualified names."""
    found: list[DefLines] = []

    def visit(children: Iterable[ast.AST], prefix: str) -> None:
        for child in children:
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                start = min([child.lineno] + [d.lineno for d in child.decorator_list])
                is_class = isinstance(child, ast.ClassDef)
                end = child.end_lineno or child.lineno
                found.append(DefLines(start, child.lineno, end, child.name, name, is_class))
                visit(ast.iter_child_nodes(child), f"{name}." if is_class else f"{name}.<locals>.")

    visit(statements, prefix)
    return found


def _all_statements(statements: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every statement among these and inside them (and each `except` and `case` clause): a `def` or class is a
    statement, so the expressions, most of a tree, need not be walked to find them all."""
    stack: list[ast.AST] = list(statements)
    while stack:
        node = stack.pop()
        yield node
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(node, name, None)
            if isinstance(inner, list):
                stack.extend(inner)


def _parse_def(lines: Sequence[str], found: DefLines) -> FunctionNode | None:
    """The tree of one `def`, parsed from its own lines (an indented one inside `if 1:`, its lines as written, so
    strings and brackets read as in the file), numbered as in the file; the whole file where that fails."""
    segment = lines[found.start - 1 : found.end]
    indented = bool(segment) and segment[0][:1] in (" ", "\t")
    try:
        tree = ast.parse(("if 1:\n" if indented else "") + _joined(segment))
        first = tree.body[0]
        node = first.body[0] if isinstance(first, ast.If) and indented else first
        ast.increment_lineno(tree, found.start - 1 - indented)
    except (SyntaxError, ValueError, IndexError):
        node = None
    if isinstance(node, _DEFS) and node.name == found.name and node.lineno == found.line:
        return node
    whole = _parse(lines)  # a `def` whose last line goes on into the next statement (`...: pass; x = (`)
    nodes = ast.walk(whole) if whole is not None else iter(())
    return next((n for n in nodes if isinstance(n, _DEFS) and (n.lineno, n.name) == (found.line, found.name)), None)


def wraps_target(node: FunctionNode) -> str | None:
    """The name a wrapper made with `@functools.wraps(func)` wraps (`func`: it becomes the wrapper's
    `__wrapped__`); None for a function that is no such wrapper."""
    for decorator in node.decorator_list:
        if not isinstance(decorator, ast.Call) or not decorator.args or not isinstance(decorator.args[0], ast.Name):
            continue
        called = decorator.func
        if (isinstance(called, ast.Name) and called.id == "wraps") or (
            isinstance(called, ast.Attribute) and called.attr == "wraps"
        ):
            return decorator.args[0].id
    return None


def calls_name(node: ast.AST, name: str, line: int) -> bool:
    """Whether the code of `node` on `line` calls the plain name `name` (`func(self, *args)`)."""
    return any(
        isinstance(child, ast.Call)
        and isinstance(child.func, ast.Name)
        and child.func.id == name
        and child.lineno <= line <= (child.end_lineno or child.lineno)
        for child in ast.walk(node)
    )


def _none_default_parameters(node: FunctionNode) -> tuple[str, ...]:
    """The parameters of `node` defaulting to None."""
    args = node.args
    positional = args.posonlyargs + args.args
    pairs = list(zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None]
    return tuple(a.arg for a, d in pairs if isinstance(d, ast.Constant) and d.value is None)
