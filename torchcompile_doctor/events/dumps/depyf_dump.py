"""Static reader of a depyf dump directory: the guards of every cache entry of every compiled frame,
and which transformed-code files belong to it. Nothing in the dump is imported or executed: files are
read as bytes (size-capped, symlinks never followed), decoded leniently, and checked with `ast`.

Two producers write such a directory:

- `depyf.prepare_debug(DIR)` (depyf 0.20, torch 2.13). `full_code_for_<fn>_<k>.py`, one per compiled
  code object, holds one guard function per cache entry (and those of the resume functions it calls)::

      def __guard_3_for_forward(L, G, **___kwargs_ignored):
          __guard_hit = True
          __guard_hit = __guard_hit and L['self'].count == 3     # self.count += 1  # m.py:17 in forward
          return __guard_hit

  The checks are torch's verbose guard texts, which are not always Python (`... ids == None`,
  `___check_obj_id(...), type=<class 'super'>`), so the file is checked by `ast` with each check
  replaced by `True`, and the checks themselves are kept as text. Guards below dict-keyed managers
  (e.g. `blocks._modules['3'].c == 3`) are missing there on torch 2.13. `__transformed_code_<N>_for_<fn>.py`
  holds the decompiled transformed bytecode of entry N.
- the doctor's observe-only hook (capture/depyf_observe.py): the same `__transformed_code_*` files and
  `__guard_tree_<N>_for_<fn>.txt`, torch's complete C++ guard tree of entry N; each of its files
  starts with a JSON header line naming the original function, its file and line, and the compile id.
"""

from __future__ import annotations

import ast
import io
import json
import os
import re
import stat
import tokenize
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from torchcompile_doctor.events.dumps.layout import (
    DECOMPILE_FAILED,
    FULL_CODE,
    GUARD_TREE,
    NOT_READ,
    OBSERVE_HEADER,
    TRANSFORMED,
)
from torchcompile_doctor.events.model import Guard
from torchcompile_doctor.events.parsers.guards_tree import parse_tree

_GUARD_DEF = re.compile(
    r"^def (?P<name>__guard_(?P<index>\d+)_for_(?P<function>\w+)|guard_(?P<anonymous>\d+))"
    r"\(L, G, \*\*___kwargs_ignored\):\s*$"
)
_GUARD_CHECK = re.compile(r"^(?P<indent>[ \t]+)__guard_hit = __guard_hit and (?P<check>.*)$")
_COMMENT_FALLBACK = re.compile(r"\s{2,}#\s")


@dataclass(frozen=True)
class DumpedEntry:
    """One cache entry of a compiled frame."""

    guards: tuple[str, ...]  # guard expressions as written in the dump, one per check, in order
    source_file: str  # the dump file it came from (relative to the dump dir)
    index: int = -1  # N of `__guard_N_for_fn` / `__transformed_code_N_for_fn`: compile order per name
    # per guard of a full_code file, its trailing comment (`src  # file:line in fn`), "" if none
    comments: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()  # per guard, TENSOR_MATCH etc.; only the C++ guard tree gives kinds
    compile_id: str | None = None  # e.g. "0/3", when the dump records it (observe dumps)
    tree: tuple[Guard, ...] = ()  # a C++ guard tree's leaves, parsed as TORCH_TRACE's are (observe dumps)


@dataclass(frozen=True)
class DumpedFrame:
    function: str  # co_name as in the file names (e.g. forward, torch_dynamo_resume_in_f_at_9)
    entries: tuple[DumpedEntry, ...]
    code_files: tuple[str, ...]  # decompiled/transformed code files for this frame
    origin: str = ""  # `file:line` of the original function (observe dumps), else the full_code file


@dataclass
class DumpHealth:
    files: int = 0  # directory entries seen
    skipped: int = 0  # entries not used, for any of the reasons below or an OS error
    syntax_errors: int = 0
    too_large: int = 0
    symlinks_outside: int = 0
    unknown_files: int = 0  # names no depyf/doctor dump uses, sub-directories, devices, fifos
    undecodable: int = 0  # files with non-UTF-8 bytes (read with replacement characters)
    failed_decompiles: int = 0  # `.failed.txt` notes of the observe hook


@dataclass
class _FrameParts:
    entries: dict[int, DumpedEntry] = field(default_factory=dict)
    code_files: dict[str, int] = field(default_factory=dict)  # file name -> entry index


def _read_text(path: str, limit: int, health: DumpHealth) -> str | None:
    """The file's text, or None (counted) when it is too large or unreadable. Never follows a symlink."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        descriptor = os.open(path, flags)
    except OSError:
        health.skipped += 1
        return None
    with os.fdopen(descriptor, "rb") as stream:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            health.unknown_files += 1
            health.skipped += 1
            return None
        if status.st_size > limit:
            health.too_large += 1
            health.skipped += 1
            return None
        # a buffer of the file's size: read(limit + 1) would allocate the whole limit for every file
        data = stream.read(status.st_size + 1)
        if len(data) > status.st_size:  # it grew since fstat
            data += stream.read(limit + 1 - len(data))
    if len(data) > limit:
        health.too_large += 1
        health.skipped += 1
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        health.undecodable += 1
        text = data.decode("utf-8", errors="replace")
    # One line numbering for us and for ast, whatever the line endings.
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _parse(text: str) -> ast.Module | None:
    try:
        # a dump's odd escapes ("\p") would print warnings to the user, or fail under `-W error`
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # ValueError: null bytes (3.11)
        return None


def split_comment(check: str) -> tuple[str, str]:
    """`L['x'].c == 3   # self.c += 1  # m.py:9 in f` -> ("L['x'].c == 3", "self.c += 1  # m.py:9 in f")."""
    try:
        for token in tokenize.generate_tokens(io.StringIO(check).readline):
            if token.type == tokenize.COMMENT:
                row, column = token.start
                offset = sum(len(line) + 1 for line in check.split("\n")[: row - 1]) + column
                return check[:offset].rstrip(), check[offset:].lstrip("#").strip()
        return check.strip(), ""
    except (tokenize.TokenError, SyntaxError, ValueError):  # torch's texts are not always Python
        match = _COMMENT_FALLBACK.search(check)
        if match is None:
            return check.strip(), ""
        return check[: match.start()].rstrip(), check[match.end() :].strip()


def _header(text: str) -> dict[str, Any]:
    first_line = text.split("\n", 1)[0]
    if not first_line.startswith(OBSERVE_HEADER):
        return {}
    try:
        header = json.loads(first_line[len(OBSERVE_HEADER) :])
    except (ValueError, RecursionError):  # RecursionError: nested deeper than json's decoder goes
        return {}
    return header if isinstance(header, dict) else {}


def _origin(header: dict[str, Any]) -> str:
    file, line = header.get("file"), header.get("line")
    if isinstance(file, str) and isinstance(line, int):
        return f"{file}:{line}"
    return ""


def _compile_id(header: dict[str, Any]) -> str | None:
    value = header.get("compile_id")
    return value if isinstance(value, str) else None


@dataclass
class _GuardFunction:
    name: str
    function: str | None  # None for depyf's `guard_N` fallback name (decompiling failed)
    index: int
    line: int  # 1-based line of the `def`
    checks: list[str] = field(default_factory=list)


def _scan_guard_functions(text: str) -> tuple[str, list[_GuardFunction]] | None:
    """The guard functions of a full_code file, and the file with every check replaced by `True`
    (what ast then checks); None when the file ends inside a guard function (half-written)."""
    lines = text.split("\n")
    current: _GuardFunction | None = None
    found: list[_GuardFunction] = []
    for number, line in enumerate(lines):
        if current is None:
            definition = _GUARD_DEF.match(line)
            if definition:
                anonymous = definition["anonymous"]
                current = _GuardFunction(
                    name=definition["name"],
                    function=None if anonymous else definition["function"],
                    index=int(anonymous or definition["index"]),
                    line=number + 1,
                )
                found.append(current)
            continue
        check = _GUARD_CHECK.match(line)
        stripped = line.strip()
        if check:
            current.checks.append(check["check"])
            lines[number] = f"{check['indent']}__guard_hit = __guard_hit and True"
        elif stripped == "return __guard_hit":
            current = None
        elif stripped != "__guard_hit = True" and current.checks:
            current.checks[-1] += "\n" + line  # a guard text that spans lines
            lines[number] = ""
    if current is not None:
        return None
    return "\n".join(lines), found


class _DumpReader:
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.health = DumpHealth()
        self.frames: dict[tuple[str, str], _FrameParts] = {}
        self.loose_code: list[tuple[str, int, str, str]] = []  # (function, index, file, origin)

    def _frame(self, origin: str, function: str) -> _FrameParts:
        return self.frames.setdefault((origin, function), _FrameParts())

    def full_code(self, path: str, name: str, file_function: str) -> None:
        text = _read_text(path, self.limit, self.health)
        if text is None:
            return
        scanned = _scan_guard_functions(text)
        module = _parse(scanned[0]) if scanned is not None else None
        if scanned is None or module is None:
            self.health.syntax_errors += 1
            self.health.skipped += 1
            return
        guard_functions = scanned[1]
        top_level = {node.lineno: node.name for node in module.body if isinstance(node, ast.FunctionDef)}
        for guard_function in guard_functions:
            if top_level.get(guard_function.line) != guard_function.name:
                continue  # looked like a guard function but is not one (e.g. inside a string)
            parts = self._frame(name, guard_function.function or file_function)
            if guard_function.index in parts.entries:
                continue  # depyf repeats a resume function's guards for each global that refers to it
            split = [split_comment(check) for check in guard_function.checks]
            parts.entries[guard_function.index] = DumpedEntry(
                guards=tuple(expression for expression, _ in split),
                source_file=name,
                index=guard_function.index,
                comments=tuple(comment for _, comment in split),
            )

    def guard_tree(self, path: str, name: str, function: str, index: int) -> None:
        text = _read_text(path, self.limit, self.health)
        if text is None:
            return
        header = _header(text)
        tree = parse_tree(text.partition("\n")[2] if header else text)
        self._frame(_origin(header), function).entries[index] = DumpedEntry(
            guards=tuple(guard.expression for guard in tree),
            source_file=name,
            index=index,
            kinds=tuple(guard.kind for guard in tree),
            compile_id=_compile_id(header),
            tree=tree,
        )

    def transformed_code(self, path: str, name: str, function: str, index: int) -> None:
        text = _read_text(path, self.limit, self.health)
        if text is None:
            return
        if _parse(text) is None:
            self.health.syntax_errors += 1
            self.health.skipped += 1
            return
        self.loose_code.append((function, index, name, _origin(_header(text))))

    def failed_decompile(self, path: str, function: str) -> None:
        self.health.failed_decompiles += 1
        text = _read_text(path, self.limit, self.health)
        if text is not None:
            self._frame(_origin(_header(text)), function)  # the frame exists even without its code

    def attach_code(self) -> None:
        """Give each transformed-code file to its frame: by the header's origin (observe dumps), else
        to the frame of that function that has entry N, else the only frame of that function."""
        for function, index, name, origin in self.loose_code:
            if origin:
                self._frame(origin, function).code_files[name] = index
                continue
            same_function = [key for key in self.frames if key[1] == function]
            with_entry = [key for key in same_function if index in self.frames[key].entries]
            if with_entry:
                key = with_entry[0]
            elif len(same_function) == 1:
                key = same_function[0]
            else:
                key = ("", function)
            self._frame(*key).code_files[name] = index

    def result(self) -> list[DumpedFrame]:
        frames = []
        for (origin, function), parts in sorted(self.frames.items()):
            frames.append(
                DumpedFrame(
                    function=function,
                    entries=tuple(parts.entries[i] for i in sorted(parts.entries)),
                    code_files=tuple(sorted(parts.code_files, key=lambda n: (parts.code_files[n], n))),
                    origin=origin,
                )
            )
        return frames


def _inside(path: str, root: Path) -> bool:
    return Path(os.path.realpath(path)).is_relative_to(root)


def read_dump(path: Path, max_file_bytes: int = 20_000_000) -> tuple[list[DumpedFrame], DumpHealth]:
    """Frames and their cache entries' guards from a depyf dump dir; what was not usable is counted
    in the health. Raises ValueError (one line) when `path` is not a readable directory."""
    root = Path(path)
    if not root.exists():
        raise ValueError(f"depyf dump {root} does not exist (pass the directory the dump was written to)")
    if not root.is_dir():
        raise ValueError(f"depyf dump {root} is not a directory (pass the directory the dump was written to)")
    try:
        with os.scandir(root) as listing:
            entries = sorted(listing, key=lambda e: e.name)
    except OSError as error:
        raise ValueError(f"cannot list depyf dump {root}: {error.strerror or error}") from None
    real_root = Path(os.path.realpath(root))
    reader = _DumpReader(max_file_bytes)
    health = reader.health
    for entry in entries:
        health.files += 1
        name = entry.name
        try:
            is_link = entry.is_symlink()
            is_file = not is_link and entry.is_file(follow_symlinks=False)
        except OSError:
            health.skipped += 1
            continue
        if is_link:
            if not _inside(entry.path, real_root):
                health.symlinks_outside += 1
            health.skipped += 1  # a link inside points at a file read under its own name
            continue
        if not is_file:
            health.unknown_files += 1
            health.skipped += 1
            continue
        if match := FULL_CODE.match(name):
            reader.full_code(entry.path, name, match["function"])
        elif match := TRANSFORMED.match(name):
            reader.transformed_code(entry.path, name, match["function"], int(match["index"]))
        elif match := GUARD_TREE.match(name):
            reader.guard_tree(entry.path, name, match["function"], int(match["index"]))
        elif match := DECOMPILE_FAILED.match(name):
            reader.failed_decompile(entry.path, match["function"])
        elif not NOT_READ.match(name):
            health.unknown_files += 1
            health.skipped += 1
    reader.attach_code()
    return reader.result(), health
