"""The recorded captures checked in under tests/, re-read through the pipeline's offline path (`doctor report`),
as a user re-reads a kept capture on another machine: nothing runs, and the code comes from each capture's
source snapshot. Each capture names the command that made it (its folder's README or recording.json)."""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from support.paths import DATA, RULES, TESTS
from torchcompile_doctor import pipeline
from torchcompile_doctor import source_files as source_snapshot
from torchcompile_doctor.analysis import AnalysisContext, report_of_ranks
from torchcompile_doctor.capture_layout import EXPERIMENTS, SIDE_CHANNEL
from torchcompile_doctor.events.load import load_ranks
from torchcompile_doctor.model.report import Report
from torchcompile_doctor.source_files import snapshot_sources

CAPTURES = DATA / "captures"  # the golden cases: every format is rendered from these
RECOMPILE_CAPTURES = DATA / "recompile_captures"
JUDGEMENT_CAPTURES = DATA / "recompile_judgement"  # small programs, one per misjudgement of recompiles (#25)
FALLBACK_CAPTURES = DATA / "fallbacks"
TRACES = DATA / "traces"  # bare TORCH_TRACE logs, one source snapshot for the folder
MULTIRANK = TRACES / "multirank"  # the two rank logs of one torchrun job
SAMPLE_CAPTURES = DATA / "samples"  # one recorded capture per sample_models/ script
CORPUS_CAPTURES = DATA / "corpus"  # ../shared/corpus-dev's cases, recorded, with their ground truth


@functools.cache
def reread(path: Path) -> Report:
    """The report `doctor report PATH` gives (a capture dir, a TORCH_TRACE dir or one trace file); cached, as
    reports are immutable."""
    return pipeline.reread(path, reread_options(path)).report


def reread_options(path: Path) -> pipeline.RereadOptions:
    """A bare trace records no program folder (`doctor report` takes the current directory, or `--root`): the
    tests give it the folder it recorded, so it reads the same from any directory on any machine."""
    if path.is_dir() and (path / SIDE_CHANNEL).is_file():
        return pipeline.RereadOptions()
    return pipeline.RereadOptions(root=Path(trace_root(path)))


def capture_dirs() -> list[Path]:
    """Every kept capture checked in under tests/: a folder with the doctor's side channel beside a trace."""
    return sorted(p.parent for p in TESTS.rglob(SIDE_CHANNEL) if EXPERIMENTS not in p.parts)


def trace_files() -> list[Path]:
    """Every bare TORCH_TRACE log checked in (not inside a capture folder), corrupted ones included."""
    return sorted(
        p for p in TRACES.rglob("*.log") if not any((parent / SIDE_CHANNEL).is_file() for parent in p.parents)
    )


@contextlib.contextmanager
def disk_answered_by(read: Callable[[str], Any], is_install_dir: Callable[[str], bool]) -> Iterator[None]:
    """Within the block the analysis's questions to the disk (a file's lines, whether a directory holds installed
    packages), when a capture's snapshot cannot answer them, go to these two functions instead."""
    saved = source_snapshot.read_source_file, source_snapshot.has_dist_info
    source_snapshot.read_source_file, source_snapshot.has_dist_info = read, is_install_dir
    try:
        yield
    finally:
        source_snapshot.read_source_file, source_snapshot.has_dist_info = saved


@contextlib.contextmanager
def disk_unreadable() -> Iterator[list[str]]:
    """Within the block a re-read finds no source file and no install dir on the disk, as on a machine that never
    had the files a capture names; yields the list of what it asked the disk for."""
    asked: list[str] = []

    def no_file(path: str) -> None:
        asked.append(path)

    def no_install_dir(directory: str) -> bool:
        asked.append(directory)
        return False

    with disk_answered_by(no_file, no_install_dir):
        yield asked


# the note ends at its one parenthesis (the terminal may wrap it across lines)
_REGISTRY_NOTE = re.compile(r"graph-break registry: [^)]*\)")


def normalise(text: str, root: str) -> str:
    """A rendered report with what differs between machines and runs made constant: the program's folder as
    recorded (`root`), checkouts, site-packages, versions and timings, and which graph-break registry a re-read used
    (the installed torch's, or the bundled copy of the capture's release where another torch is installed: the
    lane on another torch reads the same captures)."""
    text = _REGISTRY_NOTE.sub("graph-break registry: <REGISTRY>", text)
    text = text.replace(root, "<ROOT>")
    text = re.sub(r"(/[^\s\"',:]*)?/tests/", "<TESTS>/", text)  # a capture made in a checkout, any checkout
    text = re.sub(r"(/[^\s\"',:]*)?/(site|dist)-packages/", "<SITE>/", text)
    text = re.sub(r"(/[^\s\"',:]*)?/torchcompile_doctor/", "<REPO>/torchcompile_doctor/", text)  # the doctor's own
    text = re.sub(r"torchcompile-doctor [0-9][\w.+-]*", "torchcompile-doctor <version>", text)
    text = re.sub(r"\"tool_version\": \"[^\"]+\"", '"tool_version": "<version>"', text)
    text = re.sub(r'("name": "torchcompile-doctor",\s*"version": )"[^"]+"', r'\1"<version>"', text)  # sarif driver
    text = re.sub(r'name="tool_version" value="[^"]+"', 'name="tool_version" value="VERSION"', text)  # junit
    return text


def recorded_root(report: Report) -> str:
    """The folder of the program as the capture recorded it (where its paths are relative to)."""
    return str(Path(report.target).parent)


def trace_root(path: Path) -> str:
    """The folder of the program a bare trace (or a folder of rank logs) compiled, as recorded: the folder of
    the first compiled function outside the installed packages."""
    for log in load_ranks(path).logs.values():
        for metrics in log.metrics:
            file = metrics.co_filename or ""
            if file.startswith("/") and "-packages/" not in file:
                return str(Path(file).parent)
    raise AssertionError(f"{path} compiled no function of a program")


def snapshot_context(folder: Path, target: str, root: str, **fields) -> AnalysisContext:
    """The analysis context `doctor report` gives a capture in `folder`: the code from its source snapshot, any
    other file checked against the trace; for tests that call `analyze` themselves."""
    sources = snapshot_sources(folder)
    return AnalysisContext(
        target=target,
        root=root,
        read_source=sources.read,
        is_install_dir=sources.is_install_dir,
        check_sources=True,
        snapshot_files=sources.kept,
        **fields,
    )


def rule_case_captures() -> list[Path]:
    """The capture of every rule case (tests/rules/TCDnnn/NAME.py -> NAME.capture/)."""
    return sorted(RULES.glob("TCD*/*.capture"))


def merged_multirank(**fields) -> Report:
    """The two checked-in rank logs merged into one report, as `doctor report` merges a job's ranks."""
    context = snapshot_context(MULTIRANK, "tests/data/traces/multirank", trace_root(MULTIRANK), **fields)
    return report_of_ranks(load_ranks(MULTIRANK).logs, context)
