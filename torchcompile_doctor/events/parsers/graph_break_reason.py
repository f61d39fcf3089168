"""`artifact:dynamo_graph_break_reason`: one record per graph break (the same text the
`graph_breaks` log prints), in one of three shapes torch 2.6+ writes:

1. "Graph break in user code at FILE:LINE\\nGraph Break Reason: ...\\nUser code traceback:\\n..."
2. "Graph break: torch.compile cannot properly resume from this graph break, which results in a
   skip.\\n...The graph break occurred in the following user code:\\n..." (the frame runs eagerly)
A third text, "WON'T CONVERT fn FILE line N ...", comes from a failing backend; torch records the
same break again as "Graph break in user code ... Backend compiler exception" (GB0219), so it is
recognised and skipped, not counted twice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from torchcompile_doctor.events.model import CompileId, GraphBreak, StackFrame
from torchcompile_doctor.events.parsers.base import NOT_AN_EVENT, Parser
from torchcompile_doctor.events.parsers.common import GB_LINK, PayloadMemo, compile_id_of, stack_frame
from torchcompile_doctor.events.reader import Record

# A line number of more than 12 digits is damage (and int() refuses more than 4300): not a header, not a frame.
_HEADER = re.compile(r"^Graph break in user code at (?P<file>.+):(?P<line>\d{1,12})$", re.M)
_FRAME = re.compile(r'^\s*File "(?P<file>.+)", line (?P<line>\d{1,12}), in (?P<function>.+)$')
_TRACEBACK = "\nTraceback (most recent call last):"
_LOGGER_METHOD = re.compile(r"method: <Logger (?P<logger>[\w.]+)[^>]*>\.(?P<method>\w+)")
_RAISED_CALL = re.compile(r"raised exception (?P<exception>\w+\(.*\))\s*$", re.MULTILINE)
_RAISED = re.compile(r"raised exception (?P<exception>[^\n]+)")
# A call to a function Dynamo skips (GB0007: "the function `f` in file `...`"; GB0008, inlining: "qualname: f,
# name: ..., filename: `...`").
_SKIPPED = (
    re.compile(r"the function `(?P<function>[^`]+)` in file `(?P<file>[^`]+)`"),
    re.compile(r"qualname: (?P<function>[^,\s]+), name: \w+, filename: `(?P<file>[^`]+)`"),
)
# The frame torch names in its own words (GB7000's context, convert_frame's skip message).
_NAMED_SKIP = re.compile(
    r"(?:frame skipped: |skip tracing the frame )(?P<name>[^\s(]+) \((?P<file>.+?) line (?P<line>\d+)\)"
)
_EXC_LINE = re.compile(r"^torch\._dynamo\.exc\.\w+: (?P<msg>.+)$", re.M)
_CARETS = re.compile(r"^\s*[\^~]+\s*$")
_SECONDARY = "*** While handling this graph break, another graph break occurred: ***"
_GENERIC_PREAMBLES = (
    "Encountered graph break when attempting to trace",
    "Encountered graph break that we cannot resume from",
    "Failed to handle graph break gracefully.",
)
_SKIP_MARKERS = (
    "Skipping the function and falling back to eager",
    "results in a skip",
    "falling back to eager, as graph breaks in loops",
)


def parse_stack(lines: list[str]) -> tuple[StackFrame, ...]:
    """Frames of a `traceback.format_list` block; stops at the first line that is not part of it."""
    frames: list[StackFrame] = []
    index = 0
    while index < len(lines):
        match = _FRAME.match(lines[index])
        if match is None:
            if frames and lines[index].strip() and not lines[index].startswith(" "):
                break
            index += 1
            continue
        code = ""
        if index + 1 < len(lines) and not _FRAME.match(lines[index + 1]) and lines[index + 1].startswith("    "):
            code = lines[index + 1].strip()
            index += 1
        frames.append(stack_frame(match["file"], int(match["line"]), match["function"].strip(), code))
        index += 1
        while index < len(lines) and _CARETS.match(lines[index]):
            index += 1
    return tuple(frames)


def _gb_type_and_details(reason_lines: list[str]) -> tuple[str, str, list[str]]:
    """gb_type, explanation and hints from the reason block (text after 'Graph Break Reason: ')."""
    lines = [line for line in reason_lines]
    first_index = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first_index is None:
        return "", "", []
    gb_type = lines[first_index].strip()
    cursor = first_index + 1
    if gb_type.startswith(_GENERIC_PREAMBLES) or gb_type.endswith("Graph break encountered:"):
        following = next((i for i in range(cursor, len(lines)) if lines[i].strip()), None)
        if following is not None:
            gb_type, cursor = lines[following].strip(), following + 1
    explanation, hints = "", []
    for line in lines[cursor:]:
        stripped = line.strip()
        if stripped.startswith("Explanation:") and not explanation:
            explanation = stripped.removeprefix("Explanation:").strip()
        elif stripped.startswith("Hint:"):
            hints.append(stripped.removeprefix("Hint:").strip())
        elif stripped == _SECONDARY:
            break
    return gb_type, explanation, hints


@dataclass(frozen=True)
class _Where:
    """Where a break is and torch's words for it."""

    file: str
    line: int
    gb_type: str
    gb_id: str | None
    explanation: str
    hints: tuple[str, ...]
    user_stack: tuple[StackFrame, ...]
    frame_skipped: bool
    secondary_gb_ids: tuple[str, ...]


def _where_and_why(text: str) -> _Where | None:
    """Where the break is and torch's words for it, from the record's text (None: none of the known shapes)."""
    body, _, exc_part = text.partition(_TRACEBACK)
    header = _HEADER.search(body)
    if header is not None:
        after = body[header.end() :].lstrip("\n")
        reason_block, _, stack_block = after.partition("\nUser code traceback:\n")
        reason_block = reason_block.removeprefix("Graph Break Reason:").strip("\n")
        reason_lines = reason_block.split("\n")
        gb_type, explanation, hints = _gb_type_and_details(reason_lines)
        primary, _, secondary = reason_block.partition(_SECONDARY)
        ids = GB_LINK.findall(primary)
        secondary_ids = tuple(f"GB{n}" for n in GB_LINK.findall(secondary.split("Stack variable source")[0]))
        return _Where(
            file=header["file"],
            line=int(header["line"]),
            gb_type=gb_type,
            gb_id=f"GB{ids[0]}" if ids else None,
            explanation=explanation,
            hints=tuple(hints),
            user_stack=parse_stack(stack_block.split("\n")),
            frame_skipped=any(marker in reason_block for marker in _SKIP_MARKERS) or "GB7000" in secondary_ids,
            secondary_gb_ids=secondary_ids,
        )
    if body.startswith("Graph break: torch.compile cannot properly resume"):
        _, _, stack_block = body.partition("The graph break occurred in the following user code:\n")
        stack = parse_stack(stack_block.split("\n"))
        if not stack:
            return None
        exc = _EXC_LINE.search(exc_part)
        ids = GB_LINK.findall(exc_part)
        return _Where(
            file=stack[-1].file,
            line=stack[-1].line,
            gb_type=exc["msg"].strip() if exc else "Graph break that cannot be resumed",
            gb_id=f"GB{ids[0]}" if ids else None,
            explanation="",
            hints=(),
            user_stack=stack,
            frame_skipped=True,
            secondary_gb_ids=(),
        )
    return None


def parse_graph_break_text(text: str, compile_id: CompileId | None = None, raw: str | None = None) -> GraphBreak | None:
    """The GraphBreak a break's text tells (`raw`: the text as torch wrote it, when `text` was normalised), or
    None when the text is none of the known shapes."""
    where = _where_and_why(text)
    if where is None:
        return None
    raw = text if raw is None else raw
    message = raw.split(_TRACEBACK)[0]
    logger = _LOGGER_METHOD.search(message)
    raised_call, raised = _RAISED_CALL.search(message), _RAISED.search(raw)
    skipped = next((m for m in (pattern.search(message) for pattern in _SKIPPED) if m), None)
    return GraphBreak(
        compile_id=compile_id,
        file=where.file,
        line=where.line,
        gb_type=where.gb_type,
        gb_id=where.gb_id,
        explanation=where.explanation,
        hints=where.hints,
        user_stack=where.user_stack,
        frame_skipped=where.frame_skipped,
        secondary_gb_ids=where.secondary_gb_ids,
        raw=raw,
        message=message,
        logger_call=(logger["logger"], logger["method"]) if logger else None,
        raised_call=raised_call["exception"] if raised_call else None,
        raised=raised["exception"] if raised else None,
        skipped_call=(skipped["function"], skipped["file"]) if skipped else None,
        named_skips=tuple(StackFrame(m["file"], int(m["line"]), m["name"]) for m in _NAMED_SKIP.finditer(raw)),
    )


def _of_text(text: str) -> GraphBreak | object | None:
    if text.startswith("WON'T CONVERT"):
        return NOT_AN_EVENT
    return parse_graph_break_text(text)


# a break hit again (the same text on another compile: a loop, a reset, another copy of a function) is parsed once,
# its texts and stack kept once
_BREAKS = PayloadMemo(_of_text)


def parse(record: Record, strings: dict[int, str]) -> GraphBreak | object | None:
    made = _BREAKS(record)
    compile_id = compile_id_of(record.meta)
    if isinstance(made, GraphBreak) and compile_id is not None:
        return replace(made, compile_id=compile_id)
    return made


PARSER = Parser(frozenset({"artifact:dynamo_graph_break_reason"}), needs_payload=True, parse=parse)
