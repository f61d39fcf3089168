"""The user's project as `doctor fix` touches it: where it ends (the git work tree holding the target, else the
target's folder), a copy of it to try a change in without touching the original, the change as a unified diff,
and writing it only where no edit of the user's is lost.

A trial copy holds real copies of the project's Python files (the changed ones changed) and links to everything
else (data, checkpoints), so it is cheap for large projects and the program finds its files where it expects
them. Nothing is written outside the project, and nothing in it is run here."""

from __future__ import annotations

import contextlib
import difflib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path

from torchcompile_doctor.errors import DoctorError
from torchcompile_doctor.model.paths import display_path

PYTHON_SUFFIXES = (".py", ".pyi", ".pth")  # copied into a trial copy (imports resolve to the copy); others linked
_SKIPPED = {".git", "__pycache__", ".venv", "venv", ".mypy_cache", ".pytest_cache", ".ruff_cache", "node_modules"}


def project_root(target: Path) -> Path:
    """The project a target belongs to: the git work tree that holds it, else the target's own folder."""
    folder = target.resolve().parent
    try:
        top = subprocess.run(
            ["git", "-C", str(folder), "rev-parse", "--show-toplevel"], capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.SubprocessError):
        return folder
    return Path(top.stdout.strip()).resolve() if top.returncode == 0 and top.stdout.strip() else folder


_INSTALLED = frozenset({"site-packages", "dist-packages"})


def inside(root: Path, path: Path) -> bool:
    """`path` is a file of the project's own: under `root`, and not in packages installed there (a `.venv` kept in
    the project holds libraries, never the user's code to edit)."""
    try:
        relative = path.resolve().relative_to(root.resolve())
    except ValueError:
        return False
    return _INSTALLED.isdisjoint(relative.parts)


def _has_python(folder: Path) -> bool:
    for _, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if d not in _SKIPPED]
        if any(name.endswith(PYTHON_SUFFIXES) for name in files):
            return True
    return False


def _mirror(source: Path, dest: Path) -> None:
    """dest mirrors source: Python files copied, folders without Python linked whole, other files linked."""
    dest.mkdir(parents=True, exist_ok=True)
    for entry in source.iterdir():
        target = dest / entry.name
        if entry.name in _SKIPPED:
            if entry.name in (".venv", "venv"):  # a project's own environment: used as it is
                target.symlink_to(entry)
            continue
        if entry.is_dir() and not entry.is_symlink():
            if _has_python(entry):
                _mirror(entry, target)
            else:
                target.symlink_to(entry)
        elif entry.name.endswith(PYTHON_SUFFIXES):
            shutil.copy2(entry, target)
        else:
            target.symlink_to(entry)


@contextlib.contextmanager
def trial_copy(root: Path, changed: Mapping[Path, str]) -> Iterator[Path]:
    """A temporary copy of the project with `changed` (absolute path -> new text) written in it; removed after."""
    outside = [path for path in changed if not inside(root, path)]
    if outside:
        raise DoctorError(
            f"{_shown(root, outside[0])} is outside the project {root.name} (or in packages installed there): the "
            "doctor changes only the project's own files"
        )
    base = Path(tempfile.mkdtemp(prefix="torchcompile-doctor-fix-"))
    copy = base / root.name
    try:
        _mirror(root, copy)
        for path, text in changed.items():
            (copy / path.resolve().relative_to(root.resolve())).write_text(text, encoding="utf-8")
        yield copy
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _shown(root: Path, path: Path | str) -> str:
    """A path in an error message as people read it: relative to the project, never the machine's folders."""
    return display_path(str(Path(path).resolve()), roots=(str(root.resolve()),))


def unified_diff(root: Path, changed: Mapping[Path, str]) -> str:
    """The change as `git diff` shows it, paths relative to the project."""
    parts: list[str] = []
    for path, text in sorted(changed.items()):
        relative = path.resolve().relative_to(root.resolve()).as_posix()
        before = path.read_text(encoding="utf-8").splitlines(keepends=True)
        parts += difflib.unified_diff(before, text.splitlines(keepends=True), f"a/{relative}", f"b/{relative}")
    return "".join(parts)


def uncommitted(root: Path, files: list[Path]) -> list[Path]:
    """Those of `files` with changes git has not committed (or that git does not track); [] outside git."""
    if not (root / ".git").exists():
        return []
    relative = [str(f.resolve().relative_to(root.resolve())) for f in files]
    status = subprocess.run(
        ["git", "-C", str(root), "status", "--porcelain", "--", *relative], capture_output=True, text=True, timeout=60
    )
    dirty = {line[3:].strip() for line in status.stdout.splitlines() if line.strip()}
    return [f for f, name in zip(files, relative, strict=True) if name in dirty]


def write_change(root: Path, changed: Mapping[Path, str], *, originals: Mapping[Path, str]) -> list[Path]:
    """Write the change into the project, only where every file still holds what was measured (`originals`): a
    file the user edited in the meantime stops it all. Returns the files written."""
    for path in changed:  # every file checked before any is written: all of the change, or none of it
        if not inside(root, path):
            raise DoctorError(
                f"{_shown(root, path)} is outside the project {root.name} (or in packages installed there): "
                "nothing written"
            )
        if path.read_text(encoding="utf-8") != originals[path]:
            raise DoctorError(f"{_shown(root, path)} changed while the fixes were measured: nothing written")
    staged: dict[Path, Path] = {}  # each new text beside its file first, then all moved in place
    try:
        for path, text in changed.items():
            staged[path] = path.with_name(f".{path.name}.doctor-new")
            staged[path].write_text(text, encoding="utf-8")
            shutil.copymode(path, staged[path])
    except OSError as error:
        for temporary in staged.values():
            temporary.unlink(missing_ok=True)
        unwritable = _shown(root, error.filename or root)
        raise DoctorError(f"cannot write {unwritable}: {error.strerror}; nothing written") from None
    for path, temporary in staged.items():
        os.replace(temporary, path)
    return list(changed)
