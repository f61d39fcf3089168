"""A transform built at a site: its edits made on the user's file, the edited file parsed (a candidate whose file
does not parse is dropped, with why), and the hunk rendered that the report prints as before/after: the lines
the edits change, as `doctor fix` writes them."""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass

from torchcompile_doctor.model.edits import Edit
from torchcompile_doctor.transforms.site import Site


@dataclass(frozen=True)
class Transform:
    """A named change of the user's code: the edits it makes at a site, or why its preconditions do not hold."""

    name: str
    family: str  # what kind of break or recompile it answers (side_effect, number, numpy, one_time, mode, ...)
    build: Callable[[Site], tuple[Edit, ...] | str]
    reads_facts: bool = False  # it needs a detector whose facts carry the SiteFacts
    words: str = ""  # what it does, for a change too long to quote (`post-processing moved out of `detect``)


@dataclass(frozen=True)
class Hunk:
    """The lines an edit changes: before and after, dedented alike, and where they start in the file."""

    before: str
    after: str
    line: int


@dataclass(frozen=True)
class Built:
    transform: str
    edits: tuple[Edit, ...]
    hunk: Hunk


@dataclass(frozen=True)
class Dropped:
    """A transform that gave no candidate at a site, and why (its precondition, or its edit did not parse)."""

    transform: str
    reason: str


def build(transform: Transform, site: Site) -> Built | Dropped:
    # libcst (some 6 MB and 0.1 s to import) only once an edit is made: a report that builds no fix never loads it
    from torchcompile_doctor.patches.edits import EditError, edit_source

    try:
        made = transform.build(site)
    except (SyntaxError, ValueError) as error:  # the site's own text does not read as the transform expects
        return Dropped(transform.name, f"the code at line {site.line} could not be read: {error}")
    if isinstance(made, str):
        return Dropped(transform.name, made)
    try:
        edited = edit_source(site.source, made)  # the edited file parsed, or EditError
    except EditError as error:
        return Dropped(transform.name, f"its edit cannot be made: {error}")
    if edited == site.source:
        return Dropped(transform.name, "its edit changes nothing")
    return Built(transform.name, made, hunk(site.source, edited))


def hunk(source: str, edited: str) -> Hunk:
    """The changed lines of `source` and `edited`, dedented by the same amount: each run of changes with the lines
    around it that it needs (a line only added is shown with the line it stands before); runs far apart are
    joined by a `...` line."""
    old, new = source.splitlines(), edited.splitlines()
    changes = [op for op in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes() if op[0] != "equal"]
    runs: list[list[int]] = []  # [start, end, new_start, new_end] per run of changes
    for _, start, end, new_start, new_end in changes:
        if runs and start - runs[-1][1] <= 1:  # one unchanged line between: one run
            runs[-1][1], runs[-1][3] = end, new_end
        else:
            runs.append([start, end, new_start, new_end])
    befores, afters = [], []
    for start, end, new_start, new_end in runs:
        while start == end < len(old) or (start < end < len(old) and not "".join(old[start:end]).strip()):
            end, new_end = end + 1, new_end + 1  # lines only added: shown with the line they stand before
        if start == end and start > 0:  # or, at the end of the file, after
            start, new_start = start - 1, new_start - 1
        befores.append(_trimmed(old[start:end]))
        afters.append(_trimmed(new[new_start:new_end]))
    pad = _common_indent([line for lines in (*befores, *afters) for line in lines])
    shown = (
        ["\n".join(line[pad:] for line in lines) for lines in befores],
        ["\n".join(line[pad:] for line in lines) for lines in afters],
    )
    return Hunk("\n...\n".join(shown[0]), "\n...\n".join(shown[1]), runs[0][0] + 1)


def _trimmed(lines: list[str]) -> list[str]:
    """Without the blank lines at its ends (the blank lines a definition keeps above it are not the change)."""
    while lines and not lines[0].strip():
        lines = lines[1:]
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return lines


def _common_indent(lines: list[str]) -> int:
    text = [line for line in lines if line.strip()]
    return min((len(line) - len(line.lstrip()) for line in text), default=0)
