"""Where code lives: the user's files vs libraries (and whose code a line is: the user's, a third-party
package's, torch's), display paths, source lines, and the names users know their functions by (resume
functions mapped back, methods with their class)."""

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
_TORCH_MARKER = f"{os.sep}torch{os.sep}"
_DYNAMO_MARKER = f"{os.sep}torch{os.sep}_dynamo{os.sep}"
USER, THIRD_PARTY, TORCH = "user", "third_party", "torch"  # a finding's `origin`: whose code the line is
CONTEXT_LINES = 1  # source lines a location carries on either side of its own line


class CodeMap:
    def __init__(self, root: str, library_roots: Sequence[str], read_source: SourceReader) -> None:
        self.root = root.rstrip(os.sep)
        self.library_roots = tuple(r.rstrip(os.sep) + os.sep for r in library_roots if r)
        self._read_source = read_source
        self._cache: dict[str, Sequence[str] | None] = {}
        self._trees: dict[str, ast.Module | None] = {}
        self._installed_dirs: dict[str, bool] = {}

    def is_library(self, file: str) -> bool:
        if file.startswith("<") or file.startswith(_DOCTOR_DIR + os.sep):
            return True
        if self.root and file.startswith(self.root + os.sep):
            return False
        if any(marker in file for marker in _LIBRARY_MARKERS) or file.startswith(self.library_roots):
            return True
        return self._installed_package_dir(file) is not None

    def _installed_package_dir(self, file: str) -> str | None:
        return installed_package_dir(file, self._installed_dirs)

    def is_third_party(self, file: str) -> bool:
        """Installed packages other than torch: code the user can neither edit nor expect torch to fix."""
        if not self.is_library(file) or _TORCH_MARKER in file:
            return False
        return any(marker in file for marker in _LIBRARY_MARKERS) or self._installed_package_dir(file) is not None

    def origin(self, file: str) -> str | None:
        """Whose code `file` is: USER, THIRD_PARTY or TORCH; None for the standard library, frozen modules
        and Dynamo's own stand-ins, which act for whoever called them."""
        if not self.is_library(file):
            return USER
        if file.startswith(_DOCTOR_DIR + os.sep) or _DYNAMO_MARKER in file:
            return None  # the doctor's bootstrap, Dynamo's polyfills and wrappers: they act for their caller
        if _TORCH_MARKER in file and any(marker in file for marker in _LIBRARY_MARKERS):
            return TORCH
        return THIRD_PARTY if self.is_third_party(file) else None

    def owner_frame(self, stack: Sequence[StackFrame], file: str, line: int) -> StackFrame | None:
        """The frame whose code owns a break at `file:line`: that frame itself, or, for a line in the standard
        library (contextlib, logging), the nearest caller that is the user's, a package's or torch's."""
        index = next((i for i in range(len(stack) - 1, -1, -1) if (stack[i].file, stack[i].line) == (file, line)), None)
        frames = stack[: index + 1] if index is not None else stack
        return next((f for f in reversed(frames) if self.origin(f.file) is not None), None)

    def package_name(self, file: str) -> str:
        """The top-level package of a library file: `transformers` for .../transformers/models/x.py."""
        return self.display(file).split("/")[0].removesuffix(".py")

    def display(self, file: str) -> str:
        if self.root and file.startswith(self.root + os.sep):
            return file[len(self.root) + 1 :]
        for marker in _LIBRARY_MARKERS:
            if marker in file:
                return file.split(marker, 1)[1]
        installed = self._installed_package_dir(file) if not file.startswith("<") else None
        if installed:  # relative to its install dir, as for site-packages: transformers/models/...
            return file[len(installed) + 1 :]
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

    def none_default_parameters(self, file: str, line: int) -> tuple[str, ...]:
        """The parameters defaulting to None of the innermost function around `line` (what a caller may
        leave out, such as `attention_mask=None`)."""
        return none_default_parameters(self._tree(file), line)

    def user_function_name(self, file: str, co_name: str, line: int) -> str:
        """The name a user knows: resume functions become `Block.forward (after line 20)`."""
        resume = _RESUME.match(co_name)
        if resume:
            at = int(resume["line"])
            return f"{self.qualified_name(file, resume['function'], at)} (after line {at})"
        return self.qualified_name(file, co_name, line)


def installed_package_dir(file: str, cache: dict[str, bool]) -> str | None:
    """The install directory of `file` when it belongs to a package installed outside site-packages
    (`pip install --target DIR`, a vendored tree on PYTHONPATH): a directory holding `*.dist-info`
    folders beside the package's top-level folder. None for the user's own trees (no dist-info)."""
    parent = os.path.dirname(file)
    while parent and parent != os.path.dirname(parent):
        if parent not in cache:
            try:
                cache[parent] = any(name.endswith(".dist-info") for name in os.listdir(parent))
            except OSError:
                cache[parent] = False
        if cache[parent]:
            return parent
        parent = os.path.dirname(parent)
    return None


def none_default_parameters(tree: ast.Module | None, line: int) -> tuple[str, ...]:
    """The parameters defaulting to None of the innermost function around `line` in `tree`."""
    around = [
        node
        for node in (ast.walk(tree) if tree is not None else ())
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.lineno <= line <= (node.end_lineno or node.lineno)
    ]
    if not around:
        return ()
    args = max(around, key=lambda node: node.lineno).args
    positional = args.posonlyargs + args.args
    pairs = list(zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None]
    return tuple(a.arg for a, d in pairs if isinstance(d, ast.Constant) and d.value is None)


def read_source_file(path: str) -> list[str] | None:
    """The default SourceReader: the file's lines, or None when it cannot be read as text."""
    try:
        with open(path, encoding="utf-8", errors="replace") as stream:
            return stream.readlines()
    except OSError:
        return None
