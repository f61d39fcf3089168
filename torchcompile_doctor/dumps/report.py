"""A Report from a depyf dump alone (`doctor guards --dump DIR` with no capture beside it).

Only guards are known from such a dump: its frames and cache entries become the report's guard
section, with a note that on torch 2.13 depyf lists only root-level guards (nested module-attribute
guards are missing), so counts are a lower bound. Nothing in the dump is imported or executed.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from torchcompile_doctor import __version__
from torchcompile_doctor.analysis.guards import GuardEntry, GuardFrame, diff_entries, pins
from torchcompile_doctor.dumps.depyf_dump import DumpedEntry, read_dump, split_comment
from torchcompile_doctor.errors import DoctorError
from torchcompile_doctor.events.model import Guard
from torchcompile_doctor.report import Report, Summary

INCOMPLETE = (
    "this depyf dump has no guard trees: on torch 2.13 depyf lists only root-level guards, so nested guards "
    "(e.g. self.blocks[3].c == 3) may be missing and counts are a lower bound; "
    "`doctor guards TARGET --dump DIR` writes complete guard trees into the dump"
)


def guess_kind(check: str) -> str:
    """A guard kind for a check written as text (depyf's guard functions carry no kinds)."""
    for marker, kind in (
        ("check_tensor(", "TENSOR_MATCH"),
        ("___check_obj_id(", "ID_MATCH"),
        ("___check_type_id(", "TYPE_MATCH"),
        ("___check_global_state(", "GLOBAL_STATE"),
        ("___check_torch_function_mode_stack(", "TORCH_FUNCTION_MODE_STACK"),
        ("hasattr(", "DIMENSION_DYNAMIC_MARKING_GUARD"),
        ("___dict_contains(", "DICT_CONTAINS"),
        (" == ", "EQUALS_MATCH"),
        (" is None", "NONE_MATCH"),
    ):
        if marker in check:
            return kind
    return "OTHER"


def _guards(entry: DumpedEntry) -> tuple[Guard, ...]:
    guards = []
    for position, check in enumerate(entry.guards):
        expression, comment = split_comment(check)
        comment = entry.comments[position] if position < len(entry.comments) and entry.comments[position] else comment
        kind = entry.kinds[position] if position < len(entry.kinds) else guess_kind(expression)
        source, _, where = comment.rpartition("  # ") if "  # " in comment else ("", "", comment)
        where = where.split(" in ")[0].strip() or None
        guards.append(Guard(kind, expression.strip(), 1, source.strip() or None, where))
    return tuple(guards)


def report_from_depyf_dump(dump: Path) -> Report:
    try:
        frames, health = read_dump(dump)
    except ValueError as error:
        raise DoctorError(str(error)) from None
    guard_frames = []
    complete = True
    for frame in frames:
        entries, previous = [], None
        for entry in frame.entries:
            complete = complete and bool(entry.kinds)
            guards = _guards(entry)
            by_line = Counter(f"{g.where}: {g.source}" if g.source else g.where for g in guards if g.where)
            pinned = [
                pins(g)
                for g in guards
                if g.kind in ("TENSOR_MATCH", "EQUALS_MATCH") and not (g.where or "_dynamo/").startswith("_dynamo/")
            ]
            entries.append(
                GuardEntry(
                    compile_id=entry.compile_id or f"#{entry.index}",
                    guard_count=None,
                    tree_guards=len(guards),
                    by_kind=dict(Counter(g.kind for g in guards).most_common()),
                    latency_us=None,
                    by_source_line=dict(by_line.most_common()),
                    user_value_guards=0,
                    pins=tuple(pinned[:6]),
                    changed=diff_entries(previous, guards) if previous is not None else (),
                )
            )
            previous = guards
        file, _, line = frame.origin.rpartition(":")
        guard_frames.append(
            GuardFrame(
                function=frame.function,
                file=file or frame.origin,
                line=int(line) if line.isdigit() else 0,
                entries=tuple(entries),
                display_file=Path(file).name if file else frame.origin,
            )
        )
    notes = [] if complete and frames else [INCOMPLETE]
    skipped = {k: v for k, v in vars(health).items() if k != "files" and v}
    if skipped:
        notes.append(f"dump health: {health.files} files, skipped or damaged: {skipped}")
    return Report(
        tool_version=__version__,
        torch_version=None,
        target=str(dump),
        backend="unknown (read from a depyf dump)",
        target_exit_code=None,
        target_status="unknown",
        summary=Summary(),
        findings=(),
        notes=tuple(notes),
        log_health=dict(vars(health)),
        guards=tuple(guard_frames),
    )
