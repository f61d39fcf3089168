"""Where code lives: the user's files vs libraries (and whose code a line is: the user's, a third-party
package's, torch's), display paths, source lines, and the names users know their functions by (resume
functions mapped back, methods with their class)."""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Sequence

from torchcompile_doctor.analysis.function_defs import RESUME, FunctionDefs, Outlines
from torchcompile_doctor.events.model import StackFrame
from torchcompile_doctor.model.paths import display_path, display_roots, display_text
from torchcompile_doctor.model.report import Location
from torchcompile_doctor.source_files import InstallDirCheck, SourceReader, has_dist_info

_LIBRARY_MARKERS = (f"{os.sep}site-packages{os.sep}", f"{os.sep}dist-packages{os.sep}")
_DOCTOR_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_DOCTOR_MARKER = f"{os.sep}{os.path.basename(_DOCTOR_DIR)}{os.sep}"
_TORCH_MARKER = f"{os.sep}torch{os.sep}"
_DYNAMO_MARKER = f"{os.sep}torch{os.sep}_dynamo{os.sep}"
USER, THIRD_PARTY, TORCH = "user", "third_party", "torch"  # a finding's `origin`: whose code the line is
CONTEXT_LINES = 1  # source lines a location carries on either side of its own line


class CodeMap:
    def __init__(
        self,
        root: str,
        library_roots: Sequence[str],
        read_source: SourceReader,
        is_install_dir: InstallDirCheck | None = None,
        outlines: Outlines | None = None,
    ) -> None:
        self.root = root.rstrip(os.sep)
        self.library_roots = tuple(r.rstrip(os.sep) + os.sep for r in library_roots if r)
        self._display_roots = display_roots(self.root, library_roots)
        self._read_source = read_source
        self._is_install_dir = is_install_dir or has_dist_info
        self._cache: dict[str, Sequence[str] | None] = {}
        self.defs = FunctionDefs(self.lines, outlines)  # the `def`s of each file, parsed once
        self._installed_dirs: dict[str, bool] = {}
        self._installed_of: dict[str, str | None] = {}  # each file's answer, worked out once
        self._library: dict[str, bool] = {}

    def is_library(self, file: str) -> bool:
        known = self._library.get(file)
        if known is None:  # a report asks of the same few files tens of thousands of times (every frame of every stack)
            known = self._library[file] = self._is_library(file)
        return known

    def _is_library(self, file: str) -> bool:
        if file.startswith("<") or is_doctor_file(file):
            return True
        if self.root and file.startswith(self.root + os.sep):
            # the project's own, but for packages installed in it (a `.venv` kept in the project)
            return any(marker in file[len(self.root) :] for marker in _LIBRARY_MARKERS)
        if any(marker in file for marker in _LIBRARY_MARKERS) or file.startswith(self.library_roots):
            return True
        return self._installed_package_dir(file) is not None

    def _installed_package_dir(self, file: str) -> str | None:
        if file not in self._installed_of:  # a report asks of the same few files thousands of times
            self._installed_of[file] = installed_package_dir(file, self._installed_dirs, self._is_install_dir)
        return self._installed_of[file]

    def is_third_party(self, file: str) -> bool:
        """Installed packages other than torch: code the user can neither edit nor expect torch to fix."""
        if not self.is_library(file) or _TORCH_MARKER in file:
            return False
        return any(marker in file for marker in _LIBRARY_MARKERS) or self._installed_package_dir(file) is not None

    def is_torch(self, file: str) -> bool:
        """torch's own code (its modules, Dynamo's wrappers of a compiled module): no place for a finding."""
        return _TORCH_MARKER in file and self.is_library(file)

    def origin(self, file: str) -> str | None:
        """Whose code `file` is: USER, THIRD_PARTY or TORCH; None for the standard library, frozen modules
        and Dynamo's own stand-ins, which act for whoever called them."""
        if not self.is_library(file):
            return USER
        if is_doctor_file(file) or _DYNAMO_MARKER in file:
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
        """A location's `display_file`: `model.paths.display_path` (the program's folder first, then the library
        roots), with one thing only the analysis knows: a package installed outside site-packages (a dist-info
        folder beside it) is shown relative to its install dir, as site-packages' are (transformers/models/...)."""
        if self.root and file.startswith(self.root + os.sep):
            return file[len(self.root) + 1 :]
        if not file.startswith("<") and not any(marker in file for marker in _LIBRARY_MARKERS):
            installed = self._installed_package_dir(file)
            if installed:
                return file[len(installed) + 1 :]
        return display_path(file, self._display_roots, self.root)

    def display_text(self, text: str) -> str:
        """Words that name files (torch's explanation of a break) with each absolute path shown as `display`'s
        roots show it."""
        return display_text(text, self._display_roots, self.root)

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
        found = self.defs.find_def(file, function, line)
        return found.qualified if found else function

    def user_function_name(self, file: str, co_name: str, line: int) -> str:
        """The name a user knows: resume functions become `Block.forward (after line 20)`."""
        resume = RESUME.match(co_name)
        if resume:
            at = int(resume["line"])
            return f"{self.qualified_name(file, resume['function'], at)} (after line {at})"
        return self.qualified_name(file, co_name, line)


def called_name(code: str) -> str | None:
    """What a line of code calls (`y = cm(x)` -> `cm`, `out = self.model(**batch)` -> `self.model`): the
    outermost call of the statement, parsed (never run); None when the line is not one whole statement."""
    try:
        tree = ast.parse(code.strip())
    except (SyntaxError, ValueError):
        return None
    call = next((node for node in ast.walk(tree) if isinstance(node, ast.Call)), None)
    return ast.unparse(call.func) if call is not None else None


_TRACEBACK_FRAME = re.compile(r'^(?P<indent> *)File "(?P<file>[^"]+)", line \d+, in .*$')


def without_doctor_frames(text: str) -> str:
    """A traceback torch (or Python) formatted, without the doctor's own frames (its bootstrap, its hooks):
    each `File ".../torchcompile_doctor/...", line N, in f` line, and the source and caret lines under it."""
    kept: list[str] = []
    dropping: str | None = None  # the indent of the dropped frame's `File` line, while inside it
    for line in text.split("\n"):
        frame = _TRACEBACK_FRAME.match(line)
        if frame is not None:
            dropping = frame["indent"] if is_doctor_file(frame["file"]) else None
            if dropping is not None:
                continue
        elif dropping is not None and line.startswith(dropping + " ") and line.strip():
            continue  # the dropped frame's source line (and `^^^` markers), indented under it
        else:
            dropping = None
        kept.append(line)
    return "\n".join(kept)


def is_doctor_file(file: str) -> bool:
    """The doctor's own code (its bootstrap and hooks on a capture's stacks): this install's, or, in a capture
    made elsewhere, a path that ends in a module of the doctor's package as installed here."""
    if file.startswith(_DOCTOR_DIR + os.sep):
        return True
    _, marker, inside = file.rpartition(_DOCTOR_MARKER)
    return bool(marker) and inside.endswith(".py") and os.path.isfile(os.path.join(_DOCTOR_DIR, inside))


def installed_package_dir(file: str, cache: dict[str, bool], is_install_dir: InstallDirCheck) -> str | None:
    """The install directory of `file` when it belongs to a package installed outside site-packages
    (`pip install --target DIR`, a vendored tree on PYTHONPATH): a directory holding `*.dist-info`
    folders beside the package's top-level folder. None for the user's own trees (no dist-info)."""
    parent = os.path.dirname(file)
    while parent and parent != os.path.dirname(parent):
        if parent not in cache:
            cache[parent] = is_install_dir(parent)
        if cache[parent]:
            return parent
        parent = os.path.dirname(parent)
    return None
