"""The source lines a run's analysis read, kept beside its trace (`doctor_sources.json`), so that
`doctor report DIR` on another machine, or after the code was edited, shows the code as it was when the
run happened. Written by the pipeline after a capture; read back as the analysis's SourceReader. It is
JSON, parsed and never executed; a damaged or oversized snapshot is ignored (the files on disk are read)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from torchcompile_doctor.analysis.code import SourceReader, read_source_file

FILE_NAME = "doctor_sources.json"
MAX_FILE_BYTES = 2 * 1024 * 1024  # a source file larger than this is not kept (generated code, data)
MAX_SNAPSHOT_BYTES = 16 * 1024 * 1024  # the most a snapshot may hold, written or read


class RecordingReader:
    """A SourceReader that keeps what it read, for the snapshot."""

    def __init__(self, read_source: SourceReader = read_source_file) -> None:
        self._read_source = read_source
        self.read: dict[str, list[str]] = {}

    def __call__(self, path: str) -> Sequence[str] | None:
        lines = self._read_source(path)
        if lines is not None:
            self.read[path] = list(lines)
        return lines


def write_snapshot(reader: RecordingReader, directory: Path) -> None:
    """Keep the files the analysis read, smallest first, within the size limits."""
    files: dict[str, list[str]] = {}
    total = 0
    for path, lines in sorted(reader.read.items(), key=lambda item: sum(map(len, item[1]))):
        size = sum(len(line) for line in lines)
        if size > MAX_FILE_BYTES or total + size > MAX_SNAPSHOT_BYTES:
            continue
        files[path] = lines
        total += size
    try:
        (directory / FILE_NAME).write_text(json.dumps({"version": 1, "files": files}), encoding="utf-8")
    except OSError:
        pass  # the report is made already; a later `doctor report` reads the files on disk


def _load(directory: Path) -> dict[str, list[str]]:
    path = directory / FILE_NAME
    try:
        if not path.is_file() or path.stat().st_size > MAX_SNAPSHOT_BYTES * 2:  # JSON escapes add some
            return {}
        data = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, ValueError, RecursionError):
        return {}
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, dict):
        return {}
    return {
        path: lines
        for path, lines in files.items()
        if isinstance(path, str) and isinstance(lines, list) and all(isinstance(line, str) for line in lines)
    }


def snapshot_reader(directory: Path) -> SourceReader:
    """The code as the run saw it where the snapshot has it, else the file on disk."""
    kept = _load(directory) if directory.is_dir() else {}
    if not kept:
        return read_source_file

    def read(path: str) -> Sequence[str] | None:
        return kept[path] if path in kept else read_source_file(path)

    return read
