"""renderers/json_text.py writes what `json.dumps(value, indent=2, ensure_ascii=False)` writes, byte for byte."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from torchcompile_doctor.renderers.json_text import dump, dump_object, dumps

_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text()
_KEYS = st.text() | st.integers() | st.floats(allow_nan=False) | st.booleans() | st.none()
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=5) | st.tuples(inner, inner) | st.dictionaries(_KEYS, inner, max_size=5),
    max_leaves=40,
)


@settings(max_examples=300, deadline=None)
@given(_VALUES)
def test_the_text_of_json_dumps(value: object) -> None:
    assert dumps(value) == json.dumps(value, indent=2, ensure_ascii=False)  # type: ignore[arg-type]


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(_KEYS, _VALUES, max_size=6))
def test_an_object_written_as_its_items_come_is_the_text_of_json_dumps(value: dict[object, object]) -> None:
    parts: list[str] = []
    dump_object(iter(value.items()), parts.append)  # type: ignore[arg-type]
    assert "".join(parts) == json.dumps(value, indent=2, ensure_ascii=False)


def test_an_object_written_as_its_items_come_hands_each_value_on_before_the_next_is_made() -> None:
    """The report's sections are made one at a time (renderers/json.py): a section is asked for only once the one
    before it is handed on, so the document is never whole in memory."""
    written: list[str] = []
    seen: list[str] = []  # what had been handed on when each section was asked for

    def sections():  # type: ignore[no-untyped-def]
        for index in range(3):
            seen.append("".join(written))
            yield f"k{index}", [index] * 5000  # each section more parts than one chunk holds

    dump_object(sections(), written.append)
    assert json.loads("".join(written)) == {f"k{index}": [index] * 5000 for index in range(3)}
    assert seen[0] == "" and '"k0"' in seen[1] and '"k1"' in seen[2] and '"k2"' not in seen[2]


@pytest.mark.parametrize(
    "value",
    [
        {},
        [],
        {"a": [], "b": {}, "c": [{}]},
        [float("nan"), float("inf"), -float("inf"), 1e16, 0.1, -0.0, 10**30],
        {2: 2, 1.5: 3, True: 1, False: 0, None: 2},
        'é\u2028\x00"\\ 𝔘',
        [[[[[[1]]]]]],
        {"x": {"y": {"z": [1, "two", None]}}},
        [{"key": index, "text": "repeated"} for index in range(10_000)],  # more parts than one chunk holds
    ],
)
def test_edge_cases(value: object) -> None:
    assert dumps(value) == json.dumps(value, indent=2, ensure_ascii=False)  # type: ignore[arg-type]


def test_what_json_refuses_is_refused() -> None:
    with pytest.raises(TypeError):
        dumps([object()])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        dumps({(1, 2): 3})  # type: ignore[dict-item]


def test_a_big_document_is_handed_on_in_parts() -> None:
    """dump() never holds the whole text: it hands it on a few hundred parts at a time."""
    value = {"entries": [{"compile_id": f"{n}/0", "by_kind": {"TENSOR_MATCH": n}} for n in range(20_000)]}
    parts: list[str] = []
    dump(value, parts.append)
    text = json.dumps(value, indent=2, ensure_ascii=False)
    assert "".join(parts) == text
    # a chunk of a few hundred parts: a chunk of thousands held 1-2 MB of a big trace's report (issue 36)
    assert len(parts) > 100 and max(map(len, parts)) < len(text) / 100
