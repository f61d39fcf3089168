"""The one serialiser of the report model: `to_json` turns a Report (or any part of it) into plain JSON values,
field by field in declaration order. What a field is in the JSON, when it is not itself, is said where the field
is declared, in its metadata (`json_field`): left out, named otherwise, rounded, omitted while None, shown through
a view, spread into its parent, or put last. The JSON schema (version 1, README; tests/data/report-schema-v1.json)
is this module applied to the model."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, fields, is_dataclass
from enum import Enum

JSON = None | bool | int | float | str | list["JSON"] | dict[str, "JSON"]

_KEY = "json"


@dataclass(frozen=True)
class JsonField:
    """How one field appears in the JSON."""

    skip: bool = False  # not in the JSON (what renderers read, or what the schema does not carry)
    name: str | None = None  # its key, when it is not the field's name
    round_to: int | None = None  # floats rounded to this many digits (within lists and mappings too)
    omit_none: bool = False  # the key is left out while the value is None
    view: Callable[[object], object] | None = None  # what the JSON shows of the value
    spread: bool = False  # its JSON object's keys go into the parent's, in its place
    last: bool = False  # after the class's other keys (a base class's field that subclasses extend before)


def json_field(
    *,
    skip: bool = False,
    name: str | None = None,
    round_to: int | None = None,
    omit_none: bool = False,
    view: Callable[[object], object] | None = None,
    spread: bool = False,
    last: bool = False,
) -> Mapping[str, JsonField]:
    """Field metadata saying how the field appears in the JSON: `field(default=..., metadata=json_field(...))`."""
    return {_KEY: JsonField(skip, name, round_to, omit_none, view, spread, last)}


_PLAIN = JsonField()


_LAYOUTS: dict[type, tuple[tuple[str, JsonField], ...]] = {}


def _layout(cls: type) -> tuple[tuple[str, JsonField], ...]:
    """The class's fields and how each appears, the `last` ones moved to the end (computed once per class)."""
    layout = _LAYOUTS.get(cls)
    if layout is None:
        found = [(f.name, f.metadata.get(_KEY, _PLAIN)) for f in fields(cls)]
        layout = _LAYOUTS[cls] = tuple(
            [item for item in found if not item[1].last] + [item for item in found if item[1].last]
        )
    return layout


def _rounded(value: JSON, digits: int) -> JSON:
    if isinstance(value, float):
        return round(value, digits)
    if isinstance(value, list):
        return [_rounded(item, digits) for item in value]
    if isinstance(value, dict):
        return {key: _rounded(item, digits) for key, item in value.items()}
    return value  # an int stays an int: round(0, 3) would too


def json_items(value: object) -> Iterator[tuple[str, JSON]]:
    """A dataclass's JSON object key by key, each value made when it is asked for (a writer that writes each as it
    comes never holds the whole document): `to_json`'s keys and values in its order, but for a key given twice (a
    spread field's), which `to_json` keeps once, with its last value."""
    for name, how in _layout(type(value)):
        if how.skip:
            continue
        item = getattr(value, name)
        if how.omit_none and item is None:
            continue
        converted = to_json(how.view(item) if how.view is not None else item)
        if how.round_to is not None:
            converted = _rounded(converted, how.round_to)
        if how.spread and isinstance(converted, dict):
            yield from converted.items()
        else:
            yield how.name or name, converted


def _object(value: object) -> dict[str, JSON]:
    return dict(json_items(value))


def to_json(value: object) -> JSON:
    """`value` as JSON values: a dataclass (or named tuple) as an object of its fields, a tuple as a list, an enum
    as its value; mappings keyed by their keys as text."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value.value if isinstance(value, Enum) else value
    if is_dataclass(value) and not isinstance(value, type):
        return _object(value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a NamedTuple: an object, as its fields name it
        return {name: to_json(item) for name, item in zip(value._fields, value, strict=True)}
    if isinstance(value, (list, tuple)):
        return [to_json(item) for item in value]
    if isinstance(value, Mapping):
        return {str(key): to_json(item) for key, item in value.items()}
    raise TypeError(f"no JSON for {type(value).__name__}")
