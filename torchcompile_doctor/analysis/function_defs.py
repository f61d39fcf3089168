"""The `def`s of source files, indexed once per report: the function a code object comes from, the one
around a line, its qualified name (`Block.forward`, `f.<locals>.g`) and the parameters it defaults to None.

A file is parsed once into a small index of its `def`s and classes (lines, names); the syntax tree itself is not
kept (a library file's tree is megabytes of Python objects). Where a caller needs a function's own tree, only that
function's lines are parsed again, once."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

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
    """The outline of a file's lines; None when they do not parse."""
    tree = _parse(lines)
    if tree is None:
        return None
    scopes: list[Scope] = []
    none_defaults: list[tuple[int, int, tuple[str, ...]]] = []
    for node in _statements(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            end = node.end_lineno or node.lineno
            scopes.append((node.name, start, node.lineno, end))
            if not isinstance(node, ast.ClassDef):
                none_defaults.append((node.lineno, end, _none_default_parameters(node)))
    return FileOutline(tuple(_nested_defs(tree)), tuple(scopes), tuple(none_defaults))


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


def _nested_defs(tree: ast.Module) -> list[DefLines]:
    """The `def`s and classes reached through `def`s and classes, depth first, with their qualified names."""
    found: list[DefLines] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                start = min([child.lineno] + [d.lineno for d in child.decorator_list])
                is_class = isinstance(child, ast.ClassDef)
                end = child.end_lineno or child.lineno
                found.append(DefLines(start, child.lineno, end, child.name, name, is_class))
                visit(child, f"{name}." if is_class else f"{name}.<locals>.")

    visit(tree, "")
    return found


def _statements(tree: ast.Module) -> Iterator[ast.AST]:
    """Every statement of the tree (and each `except` and `case` clause): a `def` or class is a statement, so
    the expressions, most of a tree, need not be walked to find them all."""
    stack: list[ast.AST] = list(tree.body)
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
