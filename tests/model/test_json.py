"""model/json.py: the one serialiser of the report model, field metadata by field metadata, on small records of
its own and on a report re-read from a recorded capture (the schema itself: tests/renderers/test_json_schema.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple

import pytest
from support.captures import CAPTURES, reread

from torchcompile_doctor.model.json import json_field, to_json


class Colour(StrEnum):
    RED = "red"


class Pair(NamedTuple):
    left: int
    right: str


@dataclass(frozen=True)
class Inner:
    a: int = 1
    b: str = "x"


@dataclass(frozen=True)
class Base:
    tail: str = field(default="end", metadata=json_field(last=True))


@dataclass(frozen=True)
class Record(Base):
    hidden: str = field(default="secret", metadata=json_field(skip=True))
    renamed: int = field(default=3, metadata=json_field(name="shown"))
    seconds: float = field(default=1.23456, metadata=json_field(round_to=2))
    times: tuple[float, ...] = field(default=(0.1234, 2.0), metadata=json_field(round_to=1))
    maybe: str | None = field(default=None, metadata=json_field(omit_none=True))
    upper: str = field(default="low", metadata=json_field(view=lambda v: str(v).upper()))
    inner: Inner = field(default_factory=Inner, metadata=json_field(spread=True))
    colour: Colour = Colour.RED
    pair: Pair = Pair(1, "one")
    by_rank: dict[int, int] = field(default_factory=lambda: {0: 2})


def test_each_field_appears_as_its_metadata_says():
    document = to_json(Record())
    assert document == {
        "shown": 3,
        "seconds": 1.23,
        "times": [0.1, 2.0],
        "upper": "LOW",
        "a": 1,
        "b": "x",
        "colour": "red",
        "pair": {"left": 1, "right": "one"},
        "by_rank": {"0": 2},
        "tail": "end",
    }
    assert list(document)[-1] == "tail"  # a `last` field of the base class goes after the subclass's own


def test_an_omitted_none_appears_once_it_has_a_value():
    assert to_json(Record(maybe="here"))["maybe"] == "here"


def test_a_value_with_no_json_is_refused_by_name():
    with pytest.raises(TypeError, match="no JSON for object"):
        to_json(object())


def test_a_recorded_report_is_plain_json_through_and_through():
    document = to_json(reread(CAPTURES / "helper_two_callsites"))

    def plain(value: object) -> bool:
        if isinstance(value, dict):
            return all(isinstance(k, str) and plain(v) for k, v in value.items())
        if isinstance(value, list):
            return all(plain(v) for v in value)
        return value is None or isinstance(value, bool | int | float | str)

    assert isinstance(document, dict) and plain(document)
    assert document["findings"] and all("rule_help" not in f for f in document["findings"])
