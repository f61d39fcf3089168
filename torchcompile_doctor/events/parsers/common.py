"""Small helpers shared by the parsers."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any, Generic, TypeVar, cast

from torchcompile_doctor.events.model import CompileId, StackFrame
from torchcompile_doctor.events.reader import Record, decode_json

GB_LINK = re.compile(r"/gb/gb(\d{4})\.html")  # torch's link to a graph break's page names its GB id

# How to empty each table of shared objects the parsers keep while a capture is read (`forget_shared`).
_TABLES: list[Callable[[], object]] = []


def shared_table(clear: Callable[[], object]) -> None:
    """Name a table of shared objects (its `clear`) for `forget_shared`."""
    _TABLES.append(clear)


def forget_shared() -> None:
    """Empty the tables of shared objects once a capture's files are read: its events keep what they share, and a
    table kept after the read held its entries and the objects of events already freed (a big trace's report held
    about 1 MB that way while it was analysed and written)."""
    for clear in _TABLES:
        clear()


def compile_id_of(meta: dict[str, Any]) -> CompileId | None:
    frame_id, frame_compile_id = meta.get("frame_id"), meta.get("frame_compile_id")
    if type(frame_id) is int and type(frame_compile_id) is int:  # (a bool is an int, and equal to one: not cached)
        return _compile_id(frame_id, frame_compile_id)
    if isinstance(frame_id, int) and isinstance(frame_compile_id, int):
        return CompileId(frame_id, frame_compile_id)
    return None


@lru_cache(maxsize=1 << 12)
def _compile_id(frame_id: int, frame_compile_id: int) -> CompileId:
    """One (frozen, so shared) CompileId per compile: every record of a compile names it."""
    return CompileId(frame_id, frame_compile_id)


shared_table(_compile_id.cache_clear)


@lru_cache(maxsize=1 << 14)
def stack_frame(file: str, line: int, function: str, code: str = "") -> StackFrame:
    """One (frozen, so shared) StackFrame per distinct frame: a long job's stacks repeat the same frames on every
    compile and graph break, which kept each one's strings once per record (a tenth of a big log's events)."""
    return StackFrame(file, line, function, code)


shared_table(stack_frame.cache_clear)


_Place = TypeVar("_Place", bound=tuple[object, ...])
_SHARED: dict[object, object] = {}
_SHARED_MAX = 1 << 14
shared_table(_SHARED.clear)


def shared(place: _Place) -> _Place:
    """The first equal (file, line, function, name or count) read, kept for every later one: each compile's graph
    names the same places (one copy per distinct place, not one per graph)."""
    if len(_SHARED) >= _SHARED_MAX:  # a bound on what a long-lived process keeps
        _SHARED.clear()
    return cast(_Place, _SHARED.setdefault(place, place))


_Made = TypeVar("_Made")
_UNMADE = object()


class PayloadMemo(Generic[_Made]):
    """What a parser made of a payload, made once per distinct payload and shared by every record that carries it
    again (a long job logs the same guard set, graph break and graph on many compiles: one object, not one per
    record, and no second parse). Keyed by the md5 torch wrote (the reader checked it), the payload's length and its
    hash, so no payload is kept; bounded like the other shared tables here."""

    def __init__(self, make: Callable[[str], _Made], size: int = 1 << 12) -> None:
        self._make = make
        self._made: dict[tuple[object, int, int], _Made] = {}
        self._size = size
        shared_table(self._made.clear)

    def __call__(self, record: Record) -> _Made:
        payload = record.payload or ""
        md5 = record.meta.get("has_payload")
        key = (md5 if isinstance(md5, str) else None, len(payload), hash(payload))
        made = self._made.get(key, _UNMADE)
        if made is _UNMADE:
            if len(self._made) >= self._size:
                self._made.clear()
            made = self._made[key] = self._make(payload)
        return cast(_Made, made)


def as_int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def as_str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def as_float(value: object) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


def json_or_none(text: str) -> object | None:
    """The JSON value of `text`, or None when it is not JSON (nested too deep for the decoder included)."""
    try:
        value: object = decode_json(text)
        return value
    except (ValueError, RecursionError):
        return None
