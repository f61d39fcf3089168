"""A depyf dump as an event source: its frames and cache entries become the guard events TORCH_TRACE gives.

Each cache entry becomes a `GuardTree` and a `CompilationMetrics` that names its frame (function, file,
first line, compile id), so the dump goes through the normal analysis. What a dump cannot say is left
empty: no guard counts or latencies from torch, no compile times. Compile ids are the observe hook's
where every entry recorded one, else made up in dump order (frame N, entry K -> `N/K`). A dump without
C++ guard trees (a plain `depyf.prepare_debug` dump) carries a warning that its counts are a lower bound.
A dump `doctor guards TARGET --dump DIR` wrote holds the capture it was made with (capture_layout.CAPTURE_IN_DUMP):
that capture is read instead, as it is complete.
"""

from __future__ import annotations

from pathlib import Path

from torchcompile_doctor.capture_layout import CAPTURE_IN_DUMP
from torchcompile_doctor.errors import DoctorError
from torchcompile_doctor.events.dumps.depyf_dump import DumpedEntry, DumpedFrame, DumpHealth, read_dump
from torchcompile_doctor.events.load import load_artifacts, nothing_to_read
from torchcompile_doctor.events.model import CompilationMetrics, CompileId, EventLog, Guard, GuardTree, Warning_
from torchcompile_doctor.events.parsers.guards_tree import parse_guard

INCOMPLETE = (
    "this depyf dump has no guard trees: on torch 2.13 depyf lists only root-level guards, so nested guards "
    "(e.g. self.blocks[3].c == 3) may be missing and counts are a lower bound; "
    "`doctor guards TARGET --dump DIR` writes complete guard trees into the dump"
)

# depyf's guard functions carry no kinds: the kind a check's text shows, first match wins.
_KIND_MARKERS = (
    ("check_tensor(", "TENSOR_MATCH"),
    ("___check_obj_id(", "ID_MATCH"),
    ("___check_type_id(", "TYPE_MATCH"),
    ("___check_global_state(", "GLOBAL_STATE"),
    ("___check_torch_function_mode_stack(", "TORCH_FUNCTION_MODE_STACK"),
    ("hasattr(", "DIMENSION_DYNAMIC_MARKING_GUARD"),
    ("___dict_contains(", "DICT_CONTAINS"),
    (" == ", "EQUALS_MATCH"),
    (" is None", "NONE_MATCH"),
)


def guess_kind(check: str) -> str:
    """A guard kind for a check written as text (depyf's guard functions carry no kinds)."""
    return next((kind for marker, kind in _KIND_MARKERS if marker in check), "OTHER")


def entry_guards(entry: DumpedEntry) -> tuple[Guard, ...]:
    """The entry's guards as events: the C++ tree's leaves, else its full_code checks read by the same
    line parser (`expression  # source  # file:line in fn`), with a kind guessed from the expression."""
    if entry.tree:
        return entry.tree
    guards = []
    for position, expression in enumerate(entry.guards):
        comment = entry.comments[position] if position < len(entry.comments) else ""
        text = f"{expression}  # {comment}" if comment else expression
        guards.append(parse_guard(guess_kind(expression), text))
    return tuple(guards)


def _compile_ids(frames: list[DumpedFrame]) -> list[list[CompileId]]:
    """The observe hook's compile ids where every entry has one, else `frame/entry` in dump order."""
    recorded = [[CompileId.parse(e.compile_id or "") for e in f.entries] for f in frames]
    if all(compile_id is not None for ids in recorded for compile_id in ids):
        return [[compile_id for compile_id in ids if compile_id is not None] for ids in recorded]
    return [[CompileId(number, k) for k in range(len(frame.entries))] for number, frame in enumerate(frames)]


def _frame_metrics(frame: DumpedFrame, compile_id: CompileId) -> CompilationMetrics:
    """What the analysis needs to name the frame; the rest is unknown in a dump."""
    file, _, line = frame.origin.rpartition(":")
    if not line.isdigit():  # a plain depyf dump: the frame is known by its full_code file only
        file, line = frame.origin, ""
    return CompilationMetrics(
        compile_id=compile_id,
        co_name=frame.function,
        co_filename=file,
        co_firstlineno=int(line) if line else None,
        cache_size=None,
        guard_count=None,
        guard_latency_us=None,
        graph_op_count=None,
        compile_time_s=0.0,
        fail_type=None,
        fail_reason=None,
        fail_file=None,
        fail_line=None,
    )


def dump_events(frames: list[DumpedFrame], health: DumpHealth) -> EventLog:
    """The EventLog a dump yields: per cache entry its guard tree and the metrics naming its frame."""
    log = EventLog()
    for frame, ids in zip(frames, _compile_ids(frames), strict=True):
        for entry, compile_id in zip(frame.entries, ids, strict=True):
            log.metrics.append(_frame_metrics(frame, compile_id))
            log.guard_trees.append(GuardTree(compile_id, entry_guards(entry)))
    if not log.guard_trees or not all(entry.tree for frame in frames for entry in frame.entries):
        log.warnings.append(Warning_(INCOMPLETE))
    skipped = {name: count for name, count in vars(health).items() if name != "files" and count}
    if skipped:
        log.warnings.append(Warning_(f"dump health: {health.files} files, skipped or damaged: {skipped}"))
    log.health.lines = health.files
    log.health.records = len(log.guard_trees)
    return log


def load_dump(path: Path) -> EventLog:
    """A depyf dump dir as events: the capture `doctor guards TARGET --dump DIR` copied into it when there is
    one (complete), else the guards of the dump's own files. Raises DoctorError (one line) when `path` is not a
    directory or holds no guards."""
    if not path.is_dir():
        raise DoctorError(f"depyf dump {path} is not a directory (pass the directory the dump was written to)")
    capture = path / CAPTURE_IN_DUMP
    if capture.is_dir():
        return load_artifacts(capture)
    try:
        frames, health = read_dump(path)
    except ValueError as error:
        raise DoctorError(str(error)) from None
    log = dump_events(frames, health)
    if not health.files:  # an empty folder (a typo'd path made by a step before): as report and check say it
        raise DoctorError(nothing_to_read([path]))
    if not log.guard_trees:
        raise DoctorError(
            f"no guards in depyf dump {path} ({health.files} files; a dump has full_code_for_*.py or "
            "__guard_tree_*.txt files: write one with `doctor guards TARGET --dump DIR`)"
        )
    return log
