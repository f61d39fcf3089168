"""Guards: per compiled frame and cache entry, what is checked before each call, what it pins, what
changed between entries, and what it costs. Counts and kinds come from the C++ guard tree in
TORCH_TRACE (`dynamo_cpp_guards_str`); torch's own `guard_count` is reported beside them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from itertools import chain, islice
from typing import Any

from torchcompile_doctor.analysis.function_defs import RESUME
from torchcompile_doctor.analysis.index import AnalysisIndex
from torchcompile_doctor.events.model import CompilationMetrics, CompileId, Guard, GuardOverhead, GuardTree
from torchcompile_doctor.model.findings import GuardOverheadFigures
from torchcompile_doctor.model.report import CompiledFunctionGuards, GuardEntry

_TORCH_INTERNAL = ("_dynamo/", "_functorch/", "torch/")
_VALUE_KINDS = {
    "EQUALS_MATCH",
    "ID_MATCH",
    "TYPE_MATCH",
    "DICT_CONTAINS",
    "DICT_KEYS_MATCH",
    "DICT_VERSION",
    "LAMBDA_GUARD",
    "CONSTANT_MATCH",
    "BOOL_MATCH",
    "NONE_MATCH",
}


def pins(guard: Guard) -> str:
    """What one guard pins, in plain words."""
    term = guard.term
    if guard.kind == "TENSOR_MATCH" and term.tensor is not None:
        tensor = term.tensor
        layout = "contiguous" if tensor.contiguous else f"stride {list(tensor.stride)}"
        return f"{tensor.name}: {tensor.dtype} {list(tensor.size)} {layout}, requires_grad={tensor.requires_grad}"
    if guard.kind == "ID_MATCH":
        return f"{term.object_id_of or term.readable} is the very object seen at compile time"
    if guard.kind == "TYPE_MATCH" and term.type_id_of is not None:
        return f"type({term.type_id_of}) is {term.type_name or 'unchanged'}"
    if guard.kind == "GLOBAL_STATE":
        return "global torch state (grad mode, autocast, default dtype, deterministic algorithms) is unchanged"
    if guard.kind == "LAMBDA_GUARD":
        return f"Python check: {term.readable}"
    if guard.kind == "DIMENSION_DYNAMIC_MARKING_GUARD":
        return f"{term.marking[0]} has no {term.marking[1]} marking" if term.marking else term.readable
    if term.dict_key is not None:
        return term.dict_key.words
    if guard.kind in ("DICT_CONTAINS", "DICT_KEYS", "DICT_KEYS_MATCH", "DICT_VERSION"):
        return f"keys of a dict: {term.readable}"
    return term.readable


@dataclass
class _SourceIndex:
    """Maps torch's shortened paths in guard comments ('mp/g100/model.py:11') back to known files."""

    files: set[str] = field(default_factory=set)
    _resolved: dict[str, tuple[str, int] | None] = field(default_factory=dict)  # each comment resolved once

    def resolve(self, where: str) -> tuple[str, int] | None:
        if where in self._resolved:
            return self._resolved[where]
        path, _, line = where.rpartition(":")
        matches = [f for f in self.files if f.endswith(path)] if line.isdigit() else []
        found = self._resolved[where] = (min(matches, key=len), int(line)) if matches else None
        return found


def _is_user_guard(guard: Guard, index: _SourceIndex | None = None) -> bool:
    """Guards the user's own lines introduced (torch's comment names a file of theirs)."""
    if guard.where is None or guard.where.startswith(_TORCH_INTERNAL):
        return False
    return index is None or index.resolve(guard.where) is not None


def _subject(guard: Guard) -> tuple[str, str] | None:
    """(what is pinned, its value) for guards that pin a value, to diff cache entries."""
    term = guard.term
    if guard.kind == "TENSOR_MATCH":
        return (term.tensor.name, f"{term.tensor.dtype} {list(term.tensor.size)}") if term.tensor else None
    if guard.kind == "EQUALS_MATCH" and term.comparison is not None:
        return term.comparison.shown, term.comparison.value
    return None


def module_value(guard: Guard) -> tuple[str, str] | None:
    """(attribute, value) for an EQUALS_MATCH on an nn.Module attribute: `self.blocks[3].offset`, `3`."""
    if guard.kind != "EQUALS_MATCH" or not guard.term.on_self:
        return None
    return _subject(guard)


@dataclass(frozen=True, slots=True)
class _GuardFacts:
    """What the report reads of one guard. The cache entries of a frame share their Guard objects (one per
    distinct leaf line: events/parsers/guards_tree.py), so each is worked out once per report, not per entry."""

    kind: str
    place: str | None  # its user line as `by_source_line` counts it: `model.py:11: return x + 1`
    user: bool  # a line of the user's own introduced it
    pin: str | None  # what it pins, for a user's TENSOR_MATCH or EQUALS_MATCH
    subject: tuple[str, str] | None  # (what is pinned, its value), to diff cache entries
    comparable: tuple[str, str]  # (kind, expression without torch's renumbering), to diff cache entries
    carried_names: tuple[str, ...]  # the values carried across a graph break it names (`___stack0`)
    worded: str  # the guard in words, for a guard only one of two entries has


@dataclass(frozen=True, slots=True)
class _EntrySummary:
    """What a cache entry's report says of its guard set alone (all but its compile and its change from the entry
    before), worked out once per distinct set: the parser keeps a guard set logged again as one tuple, and a long
    job logs the same sets on many compiles. Its dicts and tuples are shared by those entries' GuardEntry."""

    guards: tuple[Guard, ...]  # (kept: the memo is keyed by its identity)
    keys: _EntryKeys
    carried_names: tuple[str, ...]
    by_kind: dict[str, int]
    by_source_line: dict[str, int]
    user_value_guards: int
    pins: tuple[str, ...]


class _GuardFactsMemo:
    """Each distinct guard's facts, by identity: the log keeps every Guard alive while the report is made."""

    def __init__(self, sources: _SourceIndex, display: Callable[[str], str]) -> None:
        self._sources = sources
        self._display = display
        self._facts: dict[int, _GuardFacts] = {}
        self._summaries: dict[int, _EntrySummary] = {}  # by the identity of a guard set (a tuple the log keeps)
        self._diffs: dict[tuple[int, int], tuple[str, ...]] = {}  # by the identities of two guard sets

    def summary(self, guards: tuple[Guard, ...]) -> _EntrySummary:
        found = self._summaries.get(id(guards))
        if found is None:
            facts = self.of(guards)
            pinned = [f.pin for f in facts if f.pin is not None]
            found = self._summaries[id(guards)] = _EntrySummary(
                guards=guards,
                keys=_EntryKeys.of_facts(facts),
                carried_names=tuple(name for f in facts for name in f.carried_names),
                by_kind=dict(Counter(f.kind for f in facts).most_common()),
                by_source_line=dict(Counter(f.place for f in facts if f.place is not None).most_common()),
                user_value_guards=sum(1 for f in facts if f.user and f.kind in _VALUE_KINDS),
                pins=tuple(pinned[:6]) + ((f"… and {len(pinned) - 6} more",) if len(pinned) > 6 else ()),
            )
        return found

    def diff(self, previous: _EntrySummary, current: _EntrySummary) -> tuple[str, ...]:
        """`_diff` of two guard sets, once per distinct pair (a recompile repeated on every copy of a function)."""
        key = (id(previous.guards), id(current.guards))
        found = self._diffs.get(key)
        if found is None:
            found = self._diffs[key] = _diff(previous.keys, current.keys)
        return found

    def of(self, guards: tuple[Guard, ...]) -> list[_GuardFacts]:
        facts = self._facts
        return [facts.get(id(guard)) or self._add(guard) for guard in guards]

    def _add(self, guard: Guard) -> _GuardFacts:
        user = _is_user_guard(guard, self._sources)
        facts = self._facts[id(guard)] = _GuardFacts(
            kind=guard.kind,
            place=self._place(guard),
            user=user,
            pin=pins(guard) if user and guard.kind in ("TENSOR_MATCH", "EQUALS_MATCH") else None,
            subject=_subject(guard),
            comparable=(guard.kind, guard.term.comparable),
            carried_names=guard.term.carried_names,
            worded=pins(guard),
        )
        return facts

    def _place(self, guard: Guard) -> str | None:
        if not guard.where or guard.where.startswith(_TORCH_INTERNAL):
            return None
        resolved = self._sources.resolve(guard.where)
        place = f"{self._display(resolved[0])}:{resolved[1]}" if resolved else guard.where
        return f"{place}: {guard.source}" if guard.source else place


def steady_module_values(
    trees: list[GuardTree], changes: list[tuple[str, ...]], index: _SourceIndex
) -> tuple[str, ...]:
    """Attributes of the user's modules pinned to one value in every cache entry of a frame (never the cause
    of a recompile). Attributes torch's own modules read (Conv2d's stride) are torch's business."""
    changed = {line.split(":")[0] for entry_changes in changes for line in entry_changes}
    seen: dict[str, set[str]] = {}
    for guard in {id(guard): guard for tree in trees for guard in tree.guards}.values():  # each distinct guard once
        pinned = module_value(guard) if _is_user_guard(guard, index) else None
        if pinned:
            seen.setdefault(pinned[0], set()).add(pinned[1])
    return tuple(
        f"{name} == {next(iter(values))}" for name, values in seen.items() if len(values) == 1 and name not in changed
    )


CARRIED_ACROSS_A_BREAK = "a value carried across a graph break"


def diff_entries(
    previous: tuple[Guard, ...], current: tuple[Guard, ...], carried: str = CARRIED_ACROSS_A_BREAK
) -> tuple[str, ...]:
    """`step: 1 → 2`, `x: float32 [4] → float64 [4]`, then guards only one entry has, in words (a value carried
    across a graph break named by `carried`)."""
    names = tuple(name for guard in current + previous for name in guard.term.carried_names)
    return _carried_named(_diff(_EntryKeys.of(previous), _EntryKeys.of(current)), names, carried)


@dataclass(frozen=True, slots=True)
class _EntryKeys:
    """What a cache entry is compared on: its pinned values and its guards without torch's renumbering (with
    each guard's words, for the guards only one of two entries has)."""

    subjects: dict[str, str]
    comparable: frozenset[tuple[str, str]]
    worded: Mapping[tuple[str, str], str]

    @classmethod
    def of(cls, guards: tuple[Guard, ...]) -> _EntryKeys:
        subjects = dict(s for s in map(_subject, guards) if s)
        worded = {(g.kind, g.term.comparable): pins(g) for g in guards}
        return cls(subjects, frozenset(worded), worded)

    @classmethod
    def of_facts(cls, facts: list[_GuardFacts]) -> _EntryKeys:
        worded = {f.comparable: f.worded for f in facts}
        return cls(dict(f.subject for f in facts if f.subject), frozenset(worded), worded)


def _diff(previous: _EntryKeys, current: _EntryKeys) -> tuple[str, ...]:
    before, after = previous.subjects, current.subjects
    changes = [f"{name}: {before[name]} → {value}" for name, value in after.items() if before.get(name, value) != value]
    old, new = previous.comparable, current.comparable
    changed_names = {line.split(":")[0] for line in changes}
    extra = (f"+ {k[0]}: {current.worded[k]}" for k in sorted(new - old) if not _names_in(k[1], changed_names))
    gone = (f"- {k[0]}: {previous.worded[k]}" for k in sorted(old - new) if not _names_in(k[1], changed_names))
    return tuple(changes) + tuple(islice(chain(extra, gone), 8))  # the first eight only are worded


def _names_in(expression: str, names: set[str]) -> bool:
    return any(name and name in expression for name in names)


def guard_frames(index: AnalysisIndex) -> list[CompiledFunctionGuards]:
    """The guards of each compiled function, its cache entries in compile order, with its measured overhead."""
    code = index.code
    known = {m.co_filename for m in index.log.metrics if m.co_filename}
    known |= {frame.file for start in index.log.dynamo_starts for frame in start.stack}
    sources = _SourceIndex({f for f in known if not code.is_library(f)})
    by_frame: dict[tuple[Any, ...], list[GuardTree]] = {}
    for tree in index.log.guard_trees:
        by_frame.setdefault(index.frame_key(tree.compile_id), []).append(tree)
    overheads = {(o.function_file, o.function_line): o for o in index.log.guard_overheads}
    memo = _GuardFactsMemo(sources, code.display)
    frames = []
    for (file, line, co_name), frame_trees in by_frame.items():
        entries = _entries(frame_trees, index.metrics_by_id, memo, carried_words(index, file, co_name))
        overhead = overheads.get((file, line or 0))
        frames.append(
            CompiledFunctionGuards(
                function=code.user_function_name(file, co_name, line) if file != "?" else co_name,
                file=file,
                line=line or 0,
                entries=entries,
                overhead=_figures(overhead) if overhead is not None else None,
                display_file=code.display(file) if file != "?" else file,
                steady_module_values=steady_module_values(frame_trees, [e.changed for e in entries], sources),
            )
        )
    return frames


def carried_words(index: AnalysisIndex, file: str, co_name: str) -> str:
    """How a value a resume function was handed reads: the break it crossed, with that line's code."""
    resume = RESUME.match(co_name)
    if resume is None or file == "?":
        return CARRIED_ACROSS_A_BREAK
    line = int(resume["line"])
    source = index.code.source_line(file, line)
    code = f" (`{source.strip()}`)" if source else ""
    return f"the value carried across the graph break at {index.code.display(file)}:{line}{code}"


def _carried_named(changes: tuple[str, ...], carried: tuple[str, ...], words: str) -> tuple[str, ...]:
    """The change lines with each carried value (`___stack0`) in words; several are told apart by their order."""
    names = sorted(set(carried), key=lambda n: (len(n), n))
    said = {name: f"{words} (value {n + 1} of {len(names)})" for n, name in enumerate(names)}
    if len(names) == 1:
        said = {names[0]: words}
    for name in sorted(said, key=len, reverse=True):  # ___stack10 before ___stack1
        changes = tuple(change.replace(name, said[name]) for change in changes)
    return changes


def _figures(overhead: GuardOverhead) -> GuardOverheadFigures:
    return GuardOverheadFigures(
        calls=overhead.calls,
        compiled_us=overhead.compiled_us,
        skip_guards_us=overhead.skip_guards_us,
        eager_us=overhead.eager_us,
        error=overhead.error,
        compiled_spread_us=overhead.compiled_spread_us,
        skip_guards_spread_us=overhead.skip_guards_spread_us,
        rounds=overhead.rounds,
    )


def _entries(
    frame_trees: list[GuardTree],
    metrics_by_id: Mapping[CompileId, CompilationMetrics],
    memo: _GuardFactsMemo,
    carried: str,
) -> tuple[GuardEntry, ...]:
    """A frame's cache entries in compile order, each with what changed since the one before (a value carried
    across a graph break named by `carried`, never by torch's `___stack0`)."""
    entries = []
    previous: _EntrySummary | None = None
    carried_before: tuple[str, ...] = ()
    for tree in sorted(frame_trees, key=lambda t: t.compile_id or CompileId(-1, -1)):
        metrics = metrics_by_id.get(tree.compile_id) if tree.compile_id else None
        summary = memo.summary(tree.guards)
        names = summary.carried_names + carried_before
        carried_before = summary.carried_names
        entries.append(
            GuardEntry(
                compile_id=str(tree.compile_id),
                guard_count=metrics.guard_count if metrics else None,
                tree_guards=len(tree.guards),
                by_kind=summary.by_kind,
                latency_us=metrics.guard_latency_us if metrics else None,
                by_source_line=summary.by_source_line,
                user_value_guards=summary.user_value_guards,
                pins=summary.pins,
                changed=_carried_named(memo.diff(previous, summary), names, carried) if previous is not None else (),
            )
        )
        previous = summary
    return tuple(entries)
