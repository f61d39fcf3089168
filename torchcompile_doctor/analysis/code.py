"""Where code lives: the user's files vs libraries, display paths, source lines, and the names
users know their functions by (resume functions mapped back, methods with their class)."""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Callable, Sequence

from torchcompile_doctor.events.model import StackFrame
from torchcompile_doctor.report import Location

SourceReader = Callable[[str], Sequence[str] | None]
_RESUME = re.compile(r"^torch_dynamo_resume_in_(?P<function>.+)_at_(?P<line>\d+)$")
_LIBRARY_MARKERS = (f"{os.sep}site-packages{os.sep}", f"{os.sep}dist-packages{os.sep}")
_DOCTOR_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONTEXT_LINES = 1  # source lines a location carries on either side of its own line


class CodeMap:
    def __init__(self, root: str, library_roots: Sequence[str], read_source: SourceReader) -> None:
        self.root = root.rstrip(os.sep)
        self.library_roots = tuple(r.rstrip(os.sep) + os.sep for r in library_roots if r)
        self._read_source = read_source
        self._cache: dict[str, Sequence[str] | None] = {}
        self._trees: dict[str, ast.Module | None] = {}

    def is_library(self, file: str) -> bool:
        if file.startswith("<") or file.startswith(_DOCTOR_DIR + os.sep):
            return True
        if self.root and file.startswith(self.root + os.sep):
            return False
        return any(marker in file for marker in _LIBRARY_MARKERS) or file.startswith(self.library_roots)

    def is_third_party(self, file: str) -> bool:
        """Installed packages other than torch: code the user can neither edit nor expect torch to fix."""
        if not self.is_library(file) or f"{os.sep}torch{os.sep}" in file:
            return False
        return any(marker in file for marker in _LIBRARY_MARKERS)

    def display(self, file: str) -> str:
        if self.root and file.startswith(self.root + os.sep):
            return file[len(self.root) + 1 :]
        for marker in _LIBRARY_MARKERS:
            if marker in file:
                return file.split(marker, 1)[1]
        for root in sorted(self.library_roots, key=len, reverse=True):  # the stdlib: logging/__init__.py
            if file.startswith(root):
                return file[len(root) :]
        return file

    def lines(self, file: str) -> Sequence[str] | None:
        if file not in self._cache:
            self._cache[file] = self._read_source(file)
        return self._cache[file]

    def source_line(self, file: str, line: int) -> str | None:
        lines = self.lines(file)
        if lines is None or not 1 <= line <= len(lines):
            return None
        return lines[line - 1].rstrip("\n").strip()

    def context(self, file: str, line: int) -> tuple[tuple[int, str], ...]:
        """`line` and up to CONTEXT_LINES lines either side, numbered; empty when the file cannot be read."""
        lines = self.lines(file)
        if lines is None or not 1 <= line <= len(lines):
            return ()
        numbers = range(max(1, line - CONTEXT_LINES), min(len(lines), line + CONTEXT_LINES) + 1)
        return tuple((number, lines[number - 1].rstrip("\n")) for number in numbers)

    def location(self, file: str, line: int, function: str) -> Location:
        """Every finding's location is built here, so what a location carries is decided in one place: the
        source is read now, at analysis time, and renderers only show what the location carries."""
        return Location(
            file, line, function, self.source_line(file, line), self.display(file), self.context(file, line)
        )

    def last_user_frame(self, stack: Sequence[StackFrame]) -> StackFrame | None:
        return next((f for f in reversed(stack) if not self.is_library(f.file)), None)

    def qualified_name(self, file: str, function: str, line: int) -> str:
        """`forward` -> `Block.forward` when `line` is inside a method of class Block."""
        found = self._find_def(file, function, line)
        return found[0] if found else function

    def function_node(self, file: str, co_name: str, line: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The `def` of torch's code object (co_name, co_firstlineno); for a resume function, the `def` it
        resumes; None for comprehensions, lambdas and unreadable files."""
        resume = _RESUME.match(co_name)
        if resume:
            co_name, line = resume["function"], int(resume["line"])
        found = self._find_def(file, co_name, line)
        return found[1] if found else None

    def enclosing_function(self, file: str, line: int) -> str | None:
        """The qualified name of the innermost `def` whose body holds `line` (None at module level)."""
        tree = self._tree(file)
        best: tuple[int, str] | None = None

        def visit(node: ast.AST, prefix: str) -> None:
            nonlocal best
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    name = f"{prefix}{child.name}"
                    inside = child.lineno <= line <= (child.end_lineno or child.lineno)
                    if inside and not isinstance(child, ast.ClassDef) and (best is None or child.lineno >= best[0]):
                        best = (child.lineno, name)
                    visit(child, f"{name}." if isinstance(child, ast.ClassDef) else f"{name}.<locals>.")

        if tree is not None:
            visit(tree, "")
        return best[1] if best else None

    def _find_def(
        self, file: str, function: str, line: int
    ) -> tuple[str, ast.FunctionDef | ast.AsyncFunctionDef] | None:
        """The innermost `def function` whose lines (decorators included) hold `line`, with its qualified name."""
        tree = self._tree(file)
        if tree is None:
            return None
        best: tuple[int, str, ast.FunctionDef | ast.AsyncFunctionDef] | None = None

        def visit(node: ast.AST, prefix: str) -> None:
            nonlocal best
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    name = f"{prefix}{child.name}"
                    start = min([child.lineno] + [d.lineno for d in getattr(child, "decorator_list", [])])
                    end = child.end_lineno or child.lineno
                    if not isinstance(child, ast.ClassDef) and child.name == function and start <= line <= end:
                        if best is None or start >= best[0]:
                            best = (start, name, child)
                    visit(child, f"{name}." if isinstance(child, ast.ClassDef) else f"{name}.<locals>.")

        visit(tree, "")
        return (best[1], best[2]) if best else None

    def _tree(self, file: str) -> ast.Module | None:
        """Each file is parsed once per report (library files can be thousands of lines)."""
        if file not in self._trees:
            lines = self.lines(file)
            try:
                text = "".join(lines) if lines and lines[0].endswith("\n") else "\n".join(lines or ())
                self._trees[file] = ast.parse(text) if lines else None
            except (SyntaxError, ValueError):
                self._trees[file] = None
        return self._trees[file]

    def user_function_name(self, file: str, co_name: str, line: int) -> str:
        """The name a user knows: resume functions become `Block.forward (after line 20)`."""
        resume = _RESUME.match(co_name)
        if resume:
            at = int(resume["line"])
            return f"{self.qualified_name(file, resume['function'], at)} (after line {at})"
        return self.qualified_name(file, co_name, line)


def read_source_file(path: str) -> list[str] | None:
    """The default SourceReader: the file's lines, or None when it cannot be read as text."""
    try:
        with open(path, encoding="utf-8", errors="replace") as stream:
            return stream.readlines()
    except OSError:
        return None
