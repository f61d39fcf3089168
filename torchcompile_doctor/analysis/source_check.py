"""Is a file on disk still the code the trace saw? When a capture is re-read and its source snapshot lacks a
file (a bare TORCH_TRACE dir, a capture from before snapshots, a file too large to keep), the file is read from
the disk, where it may have changed since the run: the user edited the script, or another release of a library
is installed. The trace recorded, for each frame on its stacks, the function and the text of the line, and
for each compiled function the line its `def` starts on; a file that no longer says that is not used (no line,
function name or context is taken from it) and the report names it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from torchcompile_doctor.analysis.function_defs import RESUME, FileOutline, Outlines, Scope, file_outline
from torchcompile_doctor.events.model import EventLog, StackFrame
from torchcompile_doctor.source_files import SourceReader


@dataclass(frozen=True)
class RecordedLine:
    """What the trace says is at a line of a file: its text (stripped; "" when not recorded) and the function
    (torch's co_name) running there, or whose `def` starts there (`starts_def`)."""

    line: int
    text: str
    function: str
    starts_def: bool = False


def recorded_lines(log: EventLog) -> dict[str, tuple[RecordedLine, ...]]:
    """Per file, what the log recorded of its lines."""
    stacks: list[tuple[StackFrame, ...]] = [start.stack for start in log.dynamo_starts]
    stacks += [brk.user_stack for brk in log.graph_breaks]
    stacks += [exit_.stack for exit_ in log.target_exits]
    facts: dict[str, set[RecordedLine]] = {}
    # each distinct frame once: the parsers share one object per frame (events/parsers/common.py), which a long
    # job's stacks repeat on every compile and graph break
    frames = {id(frame): frame for stack in stacks for frame in stack}
    for frame in frames.values():
        text = frame.code.strip().splitlines()[0].strip() if frame.code.strip() else ""
        facts.setdefault(frame.file, set()).add(RecordedLine(frame.line, text, frame.function))
    for metrics in log.metrics:
        if metrics.co_filename and metrics.co_firstlineno and metrics.co_name:
            # a resume function's code starts at the line it resumes after, inside the function it resumes
            starts_def = RESUME.match(metrics.co_name) is None
            fact = RecordedLine(metrics.co_firstlineno, "", metrics.co_name, starts_def=starts_def)
            facts.setdefault(metrics.co_filename, set()).add(fact)
    # every field in the key: lines that share a number and text sort the same on every run (set order varies)
    return {
        file: tuple(sorted(lines, key=lambda f: (f.line, f.text, f.function, f.starts_def)))
        for file, lines in facts.items()
    }


class CheckedSources:
    """A SourceReader that refuses a file whose lines no longer say what the trace recorded; `changed` names
    each refused file with the first disagreement, for the report's notes."""

    def __init__(
        self,
        read_source: SourceReader,
        recorded: dict[str, tuple[RecordedLine, ...]],
        as_it_ran: frozenset[str] = frozenset(),
        outlines: Outlines | None = None,
    ) -> None:
        self._read_source = read_source
        self._recorded = recorded
        self._as_it_ran = as_it_ran  # files the reader answers from a snapshot: the code as it ran, nothing to check
        self._outlines = outlines or Outlines()  # shared with the code map, which reads the same files' defs
        self.changed: dict[str, str] = {}

    def __call__(self, path: str) -> Sequence[str] | None:
        lines = self._read_source(path)
        if lines is None or path in self._as_it_ran:
            return lines
        outlines = self._outlines
        disagreement = first_disagreement(lines, self._recorded.get(path, ()), lambda: outlines.of(path, lines))
        if disagreement is not None:
            self.changed[path] = disagreement
            return None
        return lines


def first_disagreement(
    lines: Sequence[str], recorded: Sequence[RecordedLine], outline: Callable[[], FileOutline | None] | None = None
) -> str | None:
    """How the file's lines contradict what was recorded of them (the first contradiction), or None; `outline`
    gives the file's parsed outline (by default the lines are parsed here)."""
    scopes: Sequence[Scope] | None = None  # parsed at the first function to check
    for fact in recorded:
        now = lines[fact.line - 1].strip() if 1 <= fact.line <= len(lines) else None
        if now is None:
            return f"the trace has line {fact.line}; the file now has {len(lines)} lines"
        if fact.text and now != fact.text:
            return f"the trace has `{fact.text}` at line {fact.line}; the file now has `{now}`"
        function = _checked_name(fact.function)
        if function is None:
            continue
        if scopes is None:
            found = outline() if outline is not None else file_outline(lines)
            scopes = found.scopes if found is not None else ()
        if scopes and not any(_agrees(scope, function, fact) for scope in scopes):
            where = "starting at" if fact.starts_def else "around"
            return f"the trace has `{function}` {where} line {fact.line}; the file now has no such function there"
    return None


def _checked_name(function: str) -> str | None:
    """The name to look for in the file: a resume function's original; None for code with no `def` of its
    own (a module, a lambda, a comprehension)."""
    resume = RESUME.match(function)
    name = resume["function"] if resume else function
    return name if name.isidentifier() else None


def _agrees(scope: Scope, function: str, fact: RecordedLine) -> bool:
    name, first, def_line, end = scope
    if name != function:
        return False
    return fact.line in (first, def_line) if fact.starts_def else first <= fact.line <= end
