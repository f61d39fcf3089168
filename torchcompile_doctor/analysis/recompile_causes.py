"""The causes of one function's recompiles, read from every cache entry's guard failure.

torch's `recompile_reasons` lists, for each recompile, the first failing guard of *every* existing
cache entry. A cause is one guarded value (`self.calls`, `x.requires_grad`, `input_ids.shape[1]`):
the entries that failed on it would match if only that value had stayed the same. The root cause is
the value that keeps taking new values (a counter: each value needs its own entry, so the entries
grow without bound); a value with two states (requires_grad, grad mode) at most doubles them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from torchcompile_doctor.events.guard_failures import GuardFailure

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

    @property
    def unbounded(self) -> bool:
        """A counter: three or more distinct values of a number, each needing its own entry."""
        if self.reason_class in BOUNDED_CLASSES or self.reason_class not in VALUE_CLASSES:
            return False
        if DYNAMIC_FROM_THEN_ON in self.values:  # torch stopped specializing it: no more entries for it
            return False
        return len(self.values) >= 3

    @property
    def counter(self) -> bool:
        """Integer values that only grow (0, 1, 2, 3): a value incremented on every call."""
        numbers = [int(v) for v in self.values if _INTEGER.match(v)]
        return len(numbers) >= 3 and numbers == sorted(numbers) and len(set(numbers)) == len(numbers)


def causes(records: list[list[GuardFailure]]) -> list[Cause]:
    """The causes of a function's recompiles, root cause first: unbounded before bounded, then the one
    more entries failed on. `records` holds each recompile's parsed failures (one per existing entry)."""
    by_variable: dict[str, list[GuardFailure]] = {}
    for failures in records:
        for failure in failures:
            by_variable.setdefault(failure.variable, []).append(failure)
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
        found.append(Cause(variable, reason_class, tuple(failures), tuple(values), entries))
    return sorted(found, key=lambda c: (not c.unbounded, -len(c.failures), -len(c.values)))


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


def unbounded_note(root: Cause, others: list[Cause]) -> str | None:
    """Which cause makes the entries unbounded, when there are several (None when there is one)."""
    if not root.unbounded:
        return None
    shown = " → ".join(root.values[:4]) + (" → …" if len(root.values) > 4 else "")
    kind = "grows on every call" if root.counter else "takes a new value on every call"
    note = (
        f"`{root.variable}` {kind} ({shown}): each value needs its own cache entry, so the entries grow without bound"
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
    return f"torch says `{failure.guard[:160]}`"
