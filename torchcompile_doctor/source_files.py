"""The user's source files as the analysis reads them (a SourceReader, an InstallDirCheck): from the disk, or
from the snapshot a capture keeps of them.

The snapshot is what a run's analysis read of the disk, kept in the capture folder (`doctor_sources.json`,
capture_layout.SOURCE_SNAPSHOT), so that `doctor report DIR` on another machine, or after the code was edited,
reads the code as it was when the run happened and comes to the same report: every source file it read (or
found unreadable) and every directory it asked whether packages were installed there. The pipeline records the
reading of a live run (`RecordingSources`) and writes the snapshot after the analysis; a re-read gets its
sources from it (`snapshot_sources`). Writer and reader live here, in one module. It is JSON, parsed and never
executed; a damaged or oversized snapshot is ignored (the files on disk are read, and checked against the
trace: analysis/source_check.py).

Version 1 (before 2026-11-25) kept only the files read, not those found unreadable nor the install dirs."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from torchcompile_doctor.capture_layout import SOURCE_SNAPSHOT

SourceReader = Callable[[str], Sequence[str] | None]
InstallDirCheck = Callable[[str], bool]  # is this directory where packages were installed (`*.dist-info` in it)?
VERSION = 2
MAX_FILE_BYTES = 2 * 1024 * 1024  # a source file larger than this is not kept (generated code, data)
MAX_SNAPSHOT_BYTES = 16 * 1024 * 1024  # the most a snapshot may hold, written or read


def read_source_file(path: str) -> list[str] | None:
    """The default SourceReader: the file's lines, or None when it cannot be read as text."""
    try:
        with open(path, encoding="utf-8", errors="replace") as stream:
            return stream.readlines()
    except OSError:
        return None


def has_dist_info(directory: str) -> bool:
    """The default InstallDirCheck, on the disk: does `directory` hold `*.dist-info` folders?"""
    try:
        return any(name.endswith(".dist-info") for name in os.listdir(directory))
    except OSError:
        return False


@dataclass
class SourceSnapshot:
    """Source files by path (None: the analysis found it unreadable) and install-dir answers by directory."""

    files: dict[str, list[str] | None] = field(default_factory=dict)
    install_dirs: dict[str, bool] = field(default_factory=dict)


class RecordingSources:
    """The disk, as the analysis of a live run reads it, keeping what it read for the snapshot."""

    def __init__(self, read_source: SourceReader = read_source_file, is_install_dir: InstallDirCheck = has_dist_info):
        self._read_source = read_source
        self._is_install_dir = is_install_dir
        self.snapshot = SourceSnapshot()

    def read(self, path: str) -> Sequence[str] | None:
        lines = self._read_source(path)
        self.snapshot.files[path] = list(lines) if lines is not None else None
        return lines

    def is_install_dir(self, directory: str) -> bool:
        answer = self._is_install_dir(directory)
        self.snapshot.install_dirs[directory] = answer
        return answer


class SnapshotSources:
    """The code as the run saw it where the snapshot has it, else the disk (which the analysis checks)."""

    def __init__(self, snapshot: SourceSnapshot) -> None:
        self._snapshot = snapshot
        self.kept = frozenset(snapshot.files)  # the paths answered from the snapshot

    def read(self, path: str) -> Sequence[str] | None:
        files = self._snapshot.files
        return files[path] if path in files else read_source_file(path)

    def is_install_dir(self, directory: str) -> bool:
        answers = self._snapshot.install_dirs
        return answers[directory] if directory in answers else has_dist_info(directory)


def write_snapshot(snapshot: SourceSnapshot, directory: Path) -> None:
    """Keep the files the analysis read, smallest first, within the size limits; a file left out is read from
    the disk again by a later `doctor report`."""
    files: dict[str, list[str] | None] = {path: None for path, lines in snapshot.files.items() if lines is None}
    total = 0
    readable = [(path, lines) for path, lines in snapshot.files.items() if lines is not None]
    for path, lines in sorted(readable, key=lambda item: sum(map(len, item[1]))):
        size = sum(len(line) for line in lines)
        if size > MAX_FILE_BYTES or total + size > MAX_SNAPSHOT_BYTES:
            continue
        files[path] = lines
        total += size
    data = {"version": VERSION, "files": dict(sorted(files.items())), "install_dirs": snapshot.install_dirs}
    try:
        (directory / SOURCE_SNAPSHOT).write_text(json.dumps(data, sort_keys=True), encoding="utf-8")
    except OSError:
        pass  # the report is made already; a later `doctor report` reads the files on disk


def read_snapshot(directory: Path) -> SourceSnapshot:
    """The snapshot kept in `directory`; an empty one when there is none or it is damaged."""
    path = directory / SOURCE_SNAPSHOT
    try:
        if not path.is_file() or path.stat().st_size > MAX_SNAPSHOT_BYTES * 2:  # JSON escapes add some
            return SourceSnapshot()
        data = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, ValueError, RecursionError):
        return SourceSnapshot()
    files = data.get("files") if isinstance(data, dict) else None
    install_dirs = data.get("install_dirs") if isinstance(data, dict) else None
    if not isinstance(files, dict):
        return SourceSnapshot()
    return SourceSnapshot(
        files={
            path: lines
            for path, lines in files.items()
            if isinstance(path, str)
            and (lines is None or (isinstance(lines, list) and all(isinstance(line, str) for line in lines)))
        },
        install_dirs={
            name: answer
            for name, answer in (install_dirs.items() if isinstance(install_dirs, dict) else ())
            if isinstance(name, str) and isinstance(answer, bool)
        },
    )


def snapshot_sources(directory: Path) -> SnapshotSources:
    """The sources of a kept capture: its snapshot first, the disk for what the snapshot lacks."""
    return SnapshotSources(read_snapshot(directory) if directory.is_dir() else SourceSnapshot())
