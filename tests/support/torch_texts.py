"""torch's own texts, as the recordings checked in under tests/ hold them, grouped by the torch release that wrote
them: the guard failures of recompiles, the `fail_reason` of failed compiles, the graph-break records, and the
messages of a job's text log. tests/events/test_torch_texts.py parses each one with the doctor's parsers
(events/) and compares what they make of it with a snapshot per release (tests/events/torch_texts/RELEASE.json).

A release's texts come from wherever its recordings are: every capture folder under tests/ (a side channel beside
a trace), every bare trace log under tests/data/traces, the GPU cases (tests/data/gpu: a trace dir and a text log
each), and whatever lies in tests/data/torch_texts/RELEASE/ (trace logs, `*.log.gz`, text logs: the place to drop
a release's recordings that no other test reads). The release is the one the recording names (its traces'
`pytorch_version`, the side channel's torch version); a text log without one takes its sibling trace's."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field, fields, is_dataclass
from pathlib import Path

from support.paths import DATA, TESTS
from torchcompile_doctor.capture_layout import EXPERIMENTS, SIDE_CHANNEL, TRACE_DIR
from torchcompile_doctor.events.guard_failures import parse_guard_failure
from torchcompile_doctor.events.job_logs import is_text_log, load_text_logs
from torchcompile_doctor.events.load import load_artifacts
from torchcompile_doctor.events.model import EventLog

GPU = DATA / "gpu"
DROPPED = DATA / "torch_texts"  # RELEASE/ folders of recordings kept only for their texts
# the event lists of a text log that its message parsers make (graph breaks and recompiles are checked above)
MESSAGE_EVENTS = (
    "cudagraph_skips",
    "cudagraph_partitions",
    "non_cudagraphable_ops",
    "cudagraph_recordings",
    "cudagraph_runs",
    "cudagraph_size_warnings",
    "cudagraph_overwrites",
    "torch_warnings",
    "perf_hints",
)


def release_of(version: str | None) -> str | None:
    """`2.13.0+cpu` -> `2.13`."""
    if not version:
        return None
    parts = version.split("+")[0].split(".")
    return ".".join(parts[:2]) if len(parts) >= 2 else None


def log_release(log: EventLog) -> str | None:
    versions = [b.torch_version for b in log.bootstrap] + [v.version for v in log.torch_versions]
    versions += [m.torch_version for m in log.metrics if m.torch_version]
    return next((r for r in map(release_of, versions) if r), None)


def _traces() -> Iterator[Path]:
    """Each recording read as a trace: capture folders, bare logs, GPU trace dirs, dropped logs."""
    yield from sorted(p.parent for p in TESTS.rglob(SIDE_CHANNEL) if EXPERIMENTS not in p.parts)
    captured = {p.parent for p in TESTS.rglob(SIDE_CHANNEL)}
    yield from sorted(
        p
        for p in (DATA / "traces").rglob("*.log")
        if not any(parent in captured for parent in p.parents) and "corrupted" not in p.parts
    )
    yield from sorted(case / TRACE_DIR for case in GPU.iterdir() if (case / TRACE_DIR).is_dir())
    if DROPPED.is_dir():
        yield from sorted(p for p in DROPPED.rglob("*") if p.is_file() and not is_text_log(p))


def _text_logs() -> Iterator[tuple[Path, Path | None]]:
    """Each text log, with the trace of the same run where it has one (for its release)."""
    for case in sorted(GPU.iterdir()):
        if (case / "truth.log.gz").is_file():
            yield case / "truth.log.gz", case / TRACE_DIR
    if DROPPED.is_dir():
        yield from ((p, None) for p in sorted(DROPPED.rglob("*")) if p.is_file() and is_text_log(p))


def _short(text: str) -> str:
    first = text.strip().split("\n")[0]
    return first if len(first) <= 160 else first[:157] + "..."


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", errors="replace")).hexdigest()[:12]


_STACKS = ("user_stack", "stack")  # long, and parse_stack has tests of its own: their length and last frame


def plain(value: object) -> object:
    """A parsed value as JSON: dataclasses by field (a stack by its length and last frame), tuples as lists."""
    if is_dataclass(value) and not isinstance(value, type):
        found = {f.name: plain(getattr(value, f.name)) for f in fields(value)}
        for name in _STACKS:
            stack = found.get(name)
            if isinstance(stack, list):
                found[name] = {"frames": len(stack), "last": stack[-1] if stack else None}
        return found
    if isinstance(value, (tuple, list)):
        return [plain(v) for v in value]
    return value


@dataclass
class ReleaseTexts:
    """The texts of one torch release, each once (by digest), with what the parsers make of them."""

    recordings: set[str] = field(default_factory=set)
    guard_failures: dict[str, dict] = field(default_factory=dict)
    fail_reasons: dict[str, dict] = field(default_factory=dict)
    graph_breaks: dict[str, dict] = field(default_factory=dict)
    messages: dict[str, dict] = field(default_factory=dict)

    def add_log(self, log: EventLog) -> None:
        for recompile in log.recompiles:
            for text in recompile.failures:
                self.guard_failures[_digest(text)] = {"text": _short(text), "parsed": plain(parse_guard_failure(text))}
        for metrics in log.metrics:
            if metrics.fail_reason:
                parsed = {
                    name: getattr(metrics, name)
                    for name in ("fail_gb_id", "fail_explanation", "hit_recompile_limit", "recompile_limit")
                } | {"failed_backend": metrics.failed_backend, "backend_error": metrics.backend_error}
                self.fail_reasons[_digest(metrics.fail_reason)] = {
                    "text": _short(metrics.fail_reason),
                    "parsed": parsed,
                }
        for brk in log.graph_breaks:  # as the trace's or the text log's parser made it
            parsed = plain(brk)
            assert isinstance(parsed, dict)
            for name in ("raw", "message", "compile_id"):
                parsed.pop(name)
            self.graph_breaks[_digest(brk.raw)] = {"text": _short(brk.raw), "parsed": parsed}

    def add_messages(self, log: EventLog) -> None:
        for name in MESSAGE_EVENTS:
            for event in getattr(log, name):
                fields_ = plain(event)
                self.messages[_digest(repr(fields_))] = {"event": type(event).__name__, "fields": fields_}

    def as_json(self) -> dict:
        return {
            "recordings": sorted(self.recordings),
            **{
                name: [entries[key] for key in sorted(entries)]
                for name, entries in (
                    ("guard_failures", self.guard_failures),
                    ("fail_reasons", self.fail_reasons),
                    ("graph_breaks", self.graph_breaks),
                    ("messages", self.messages),
                )
            },
        }


def texts_by_release() -> dict[str, ReleaseTexts]:
    found: dict[str, ReleaseTexts] = {}
    for path in _traces():
        log = load_artifacts(path)
        release = log_release(log)
        if release is not None:
            texts = found.setdefault(release, ReleaseTexts())
            texts.recordings.add(str(path.relative_to(TESTS)))
            texts.add_log(log)
    for path, trace in _text_logs():
        logs = [log for run in load_text_logs([path]) for log in run.logs.values()]
        release = next((r for r in map(log_release, logs) if r), None)
        if release is None and trace is not None:
            release = log_release(load_artifacts(trace))
        if release is None and DROPPED in path.parents:
            release = path.relative_to(DROPPED).parts[0]
        if release is not None:
            texts = found.setdefault(release, ReleaseTexts())
            texts.recordings.add(str(path.relative_to(TESTS)))
            for log in logs:
                texts.add_log(log)
                texts.add_messages(log)
    return found
