"""A patch written by a person or an agent (`doctor fix --candidate PATCH`): a unified diff (as `git diff` or
`diff -u` writes it) read as text, never run, and applied in memory to the project's existing files, giving each
changed file's new text; the trial engine then measures it exactly as its own candidates. A patch that is not a
unified diff, names a file outside the project or one that is not there, creates or deletes a file, or whose
context does not match the file is refused with one line naming the hunk."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from torchcompile_doctor.errors import DoctorError

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_NO_NEWLINE = "\\ No newline at end of file"


@dataclass(frozen=True)
class Hunk:
    start: int  # the first old line, counted from 1 (0: a file that did not exist)
    old: tuple[str, ...]  # the lines it replaces (context and removed), without their line ends
    new: tuple[str, ...]  # the lines that take their place (context and added)


@dataclass(frozen=True)
class FilePatch:
    path: str  # relative to the project, as the diff names it (`a/` and `b/` taken off)
    hunks: tuple[Hunk, ...]
    creates: bool = False


def _name(header: str) -> str:
    name = header[4:].split("\t")[0].strip()
    return name[2:] if name.startswith(("a/", "b/")) else name


def _hunk(lines: list[str], at: int, where: str) -> tuple[Hunk, int]:
    match = _HUNK.match(lines[at])
    if match is None:
        raise DoctorError(f"{where}: `{lines[at][:60]}` is not a hunk header (@@ -l,n +l,n @@)")
    old_count = int(match[2]) if match[2] is not None else 1
    new_count = int(match[4]) if match[4] is not None else 1
    old: list[str] = []
    new: list[str] = []
    at += 1
    while (len(old) < old_count or len(new) < new_count) and at < len(lines):
        line = lines[at]
        kind, text = (line[:1], line[1:]) if line else (" ", "")
        if kind in (" ", "-"):
            old.append(text)
        if kind in (" ", "+"):
            new.append(text)
        if kind not in (" ", "-", "+") and line != _NO_NEWLINE:
            raise DoctorError(f"{where}: line `{line[:60]}` inside a hunk starts with none of ' ', '-', '+'")
        at += 1
    if len(old) != old_count or len(new) != new_count:
        raise DoctorError(f"{where}: a hunk ends before the lines its header counts")
    while at < len(lines) and lines[at] == _NO_NEWLINE:
        at += 1
    return Hunk(int(match[1]), tuple(old), tuple(new)), at


def parse_patch(text: str, where: str) -> list[FilePatch]:
    """The files of a unified diff and their hunks (DoctorError: not one)."""
    lines = text.splitlines()
    files: list[FilePatch] = []
    at = 0
    while at < len(lines):
        if not (lines[at].startswith("--- ") and at + 1 < len(lines) and lines[at + 1].startswith("+++ ")):
            at += 1  # `diff --git`, `index ...`, a mail's words: not part of a file's change
            continue
        old, new = _name(lines[at]), _name(lines[at + 1])
        if new == "/dev/null":
            raise DoctorError(f"{where}: deletes {old}: doctor fix measures edits of files, not their removal")
        at += 2
        hunks: list[Hunk] = []
        while at < len(lines) and lines[at].startswith("@@"):
            hunk, at = _hunk(lines, at, f"{where} ({new}, hunk {len(hunks) + 1})")
            hunks.append(hunk)
        if not hunks:
            raise DoctorError(f"{where}: {new} has no hunk")
        files.append(FilePatch(new, tuple(hunks), creates=old == "/dev/null"))
    if not files:
        raise DoctorError(f"{where}: not a unified diff (no `--- a/FILE` / `+++ b/FILE` pair)")
    return files


def _apply_hunks(text: str, patch: FilePatch, where: str) -> str:
    lines = text.splitlines()
    ends_with_newline = text.endswith("\n") or not text
    out: list[str] = []
    at = 0
    for number, hunk in enumerate(patch.hunks, start=1):
        start = max(hunk.start - 1, 0) if hunk.old else hunk.start
        found = _find(lines, hunk.old, start, at)
        if found is None:
            raise DoctorError(f"{where}: hunk {number} of {patch.path} does not match the file at line {hunk.start}")
        out += lines[at:found]
        out += hunk.new
        at = found + len(hunk.old)
    out += lines[at:]
    return "\n".join(out) + ("\n" if ends_with_newline and out else "")


def _find(lines: list[str], old: tuple[str, ...], start: int, not_before: int) -> int | None:
    """Where the hunk's old lines stand: at the line the header says, else the nearest place after the last hunk."""
    size = len(old)
    places = sorted(range(not_before, len(lines) - size + 1), key=lambda place: abs(place - start))
    return next((place for place in places if tuple(lines[place : place + size]) == old), None)


def applied(root: Path, text: str, where: str) -> dict[Path, str]:
    """Each file the patch changes (an absolute path inside the project) and its new text."""
    changed: dict[Path, str] = {}
    for patch in parse_patch(text, where):
        path = (root / patch.path).resolve()
        if not path.is_relative_to(root.resolve()):
            raise DoctorError(
                f"{where}: {patch.path} is outside the project (or in packages installed there); doctor fix changes "
                "only its own files"
            )
        if patch.creates:
            raise DoctorError(f"{where}: creates {patch.path}; doctor fix measures edits of the project's files")
        try:
            original = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            raise DoctorError(f"{where}: {patch.path} is not a text file of the project") from None
        changed[path] = _apply_hunks(changed.get(path, original), patch, where)
    return changed


def read_patch(path: Path, root: Path) -> dict[Path, str]:
    """The patch file at `path` applied to the project at `root` (nothing written)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
        raise DoctorError(f"--candidate {path}: cannot read it ({reason})") from None
    return applied(root, text, f"--candidate {path.name}")
