"""The causes of one function's recompiles, read from every cache entry's guard failure.

torch's `recompile_reasons` lists, for each recompile, the first failing guard of *every* existing
cache entry. A cause is one guarded value (`self.calls`, `x.requires_grad`, `input_ids.shape[1]`):
the entries that failed on it would match if only that value had stayed the same. The root cause is
the value that keeps taking new values (a counter: each value needs its own entry, so the entries
grow without bound); a value with two states (requires_grad, grad mode) at most doubles them.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from torchcompile_doctor.events.guard_failures import GuardFailure, is_fresh_value

# values with a few states: they multiply the entries by a small factor, never without bound
BOUNDED_CLASSES = frozenset({"requires_grad", "grad_mode", "dtype", "device", "global_state", "module_structure"})
# classes whose values can keep changing call after call (a counter, a step, a learning rate)
VALUE_CLASSES = frozenset({"module_attribute", "int_specialization", "float_specialization"})
# the value the next entry was compiled for, when its guards only check the type (torch made it dynamic)
DYNAMIC_FROM_THEN_ON = "any value (dynamic from then on)"
_INTEGER = re.compile(r"^-?\d+$")


@dataclass(frozen=True)
class Cause:
    """One guarded value that made cache entries fail."""

    variable: str
    reason_class: str
    failures: tuple[GuardFailure, ...]  # every (record, entry) failure on it, in log order
    values: tuple[str, ...]  # the distinct values seen, in order
    entries: int  # the distinct cache entries that failed on it
    recompiles: int = 0  # the recompiles this value caused (each recompile's own cause: own_cause)

    @property
    def fresh(self) -> bool:
        """A value new on every call (a tensor's value formatted into a string, an address): no entry is ever
        reused, so each call compiles again until the recompile limit, even where only one call was seen."""
        return self.reason_class not in BOUNDED_CLASSES and any(map(is_fresh_value, self.values))

    @property
    def unbounded(self) -> bool:
        """A counter: three or more distinct values of a number, each needing its own entry; or a value made
        anew on every call."""
        if DYNAMIC_FROM_THEN_ON in self.values:  # torch stopped specializing it: no more entries for it
            return False
        if self.fresh:
            return True
        if self.reason_class in BOUNDED_CLASSES or self.reason_class not in VALUE_CLASSES:
            return False
        return len(self.values) >= 3

    @property
    def counter(self) -> bool:
        """Integer values that only grow (0, 1, 2, 3): a value incremented on every call."""
        numbers = [int(v) for v in self.values if _INTEGER.match(v)]
        return len(numbers) >= 3 and numbers == sorted(numbers) and len(set(numbers)) == len(numbers)


def own_cause(failures: Sequence[GuardFailure]) -> GuardFailure | None:
    """The cause of one recompile, from its own guard failures (one per existing entry, each entry's first
    failing guard): the value most entries failed on, as the call brought a value most entries were not
    compiled for; on a tie, the one the newest entry failed on (torch lists the newest entry first)."""
    if not failures:
        return None
    counts = Counter(failure.variable for failure in failures)
    most = max(counts.values())
    return next(failure for failure in failures if counts[failure.variable] == most)


def causes(records: list[list[GuardFailure]]) -> list[Cause]:
    """The causes of a function's recompiles, root cause first: unbounded before bounded, then the one that
    caused more of the recompiles (each recompile counted once, for its own cause), then the earlier.
    `records` holds each recompile's parsed failures (one per existing entry)."""
    by_variable: dict[str, list[GuardFailure]] = {}
    for failures in records:
        for failure in failures:
            by_variable.setdefault(failure.variable, []).append(failure)
    caused = Counter(cause.variable for cause in map(own_cause, records) if cause is not None)
    found = []
    for variable, failures in by_variable.items():
        values: list[str] = []
        for failure in sorted(failures, key=_entry_number):  # the order the entries were compiled in
            for value in (failure.old, failure.new):
                if value is not None and value not in values:
                    values.append(value)
        classes = [f.reason_class for f in failures]
        reason_class = max(set(classes), key=classes.count)
        entries = len({f.entry for f in failures})
        found.append(Cause(variable, reason_class, tuple(failures), tuple(values), entries, caused[variable]))
    order = list(by_variable)
    return sorted(found, key=lambda c: (not c.unbounded, -c.recompiles, order.index(c.variable)))


def several_causes(found: Sequence[Cause]) -> list[Cause]:
    """The causes that each made at least one recompile, when there are two or more (else [])."""
    own = [cause for cause in found if cause.recompiles]
    return own if len(own) > 1 else []


def _entry_number(failure: GuardFailure) -> int:
    number = failure.entry.rpartition("/")[2]
    return int(number) if number.isdecimal() else 0


def describe_causes(found: list[Cause], max_values: int = 6) -> list[str]:
    """One change line per cause, its values in the order the entries were compiled: `self.calls: 0 → 1 → 2`."""
    lines = []
    for cause in found:
        if not cause.values:
            lines.extend(describe_changes(list(cause.failures[:1])))
            continue
        values = list(cause.values)
        if len(values) > max_values:
            values = values[:3] + ["…"] + values[-2:]
        tail = " → another value" if len(values) == 1 else ""
        lines.append(f"{cause.variable}: " + " → ".join(values) + tail)
    return lines


def counted_changes(changes: Sequence[str], found: Sequence[Cause]) -> list[str]:
    """Each change line (one per cause, in `found`'s order) with the recompiles its cause made, where the
    causes differ between recompiles."""
    counted = several_causes(found)
    total = sum(cause.recompiles for cause in found)
    return [
        f"{line} ({cause.recompiles} of the {total} recompiles)" if cause in counted else line
        for cause, line in zip(found, changes, strict=False)
    ] + list(changes[len(found) :])


def unbounded_note(root: Cause, others: list[Cause]) -> str | None:
    """Which cause makes the entries unbounded, when there are several (None when there is one)."""
    if not root.unbounded:
        return None
    shown = " → ".join(root.values[:4]) + (" → …" if len(root.values) > 4 else "")
    kind = "grows on every call" if root.counter else "takes a new value on every call"
    if root.fresh:
        kind = "holds a value made anew on every call (a tensor's value formatted into it, or an address)"
    note = (
        f"`{root.variable}` {kind} ({shown}): each value needs its own cache entry, so the entries grow without bound"
    )
    if root.fresh:
        note += (
            ", every later call compiles again, and at torch's recompile limit (8 by default) the function runs eagerly"
        )
    bounded = [c for c in others if not c.unbounded]
    if bounded:
        names = ", ".join(f"`{c.variable}`" for c in bounded[:3])
        note += f"; {names} only multipl{'ies' if len(bounded) == 1 else 'y'} them by a few states"
    return note + "."


def describe_changes(failures: list[GuardFailure], max_values: int = 6) -> list[str]:
    """What changed, per variable: `x.dtype: Float → Double`, `self.step: 0 → 1 → … → 7`; where torch
    logged no values, what the guard means (`a different object`) or torch's own words, quoted."""
    by_variable: dict[str, list[str]] = {}
    first: dict[str, GuardFailure] = {}
    for failure in failures:
        values = by_variable.setdefault(failure.variable, [])
        first.setdefault(failure.variable, failure)
        for value in (failure.old, failure.new):
            if value is not None and (not values or values[-1] != value):
                values.append(value)
    lines = []
    for variable, values in by_variable.items():
        if not values:
            lines.append(f"{variable}: {_without_values(first[variable])}")
            continue
        if len(values) > max_values:
            values = values[:3] + ["…"] + values[-2:]
        lines.append(f"{variable}: " + " → ".join(values) + (" → another value" if len(values) == 1 else ""))
    return lines


def _without_values(failure: GuardFailure) -> str:
    """A change torch logged without its values: what the guard means, or torch's text quoted as torch's."""
    if failure.reason_class == "object_id":
        return "a different object than the cache entry was compiled for"
    if failure.reason_class == "grad_mode":
        return "enabled ↔ disabled (torch does not log which way)"
    if failure.reason_class == "guarded_object_freed":
        return "freed after the call, so torch dropped the code compiled for it"
    if failure.reason_class == "thread_race":
        return "failed, then passed when torch re-checked them (another thread changed state in between)"
    return f"torch says `{failure.worded_guard[:160]}`"
