"""renderers/json_text.py writes what `json.dumps(value, indent=2, ensure_ascii=False)` writes, byte for byte."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from torchcompile_doctor.renderers.json_text import dump, dumps

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
    """dump() never holds the whole text: it hands it on a few thousand parts at a time."""
    value = {"entries": [{"compile_id": f"{n}/0", "by_kind": {"TENSOR_MATCH": n}} for n in range(20_000)]}
    parts: list[str] = []
    dump(value, parts.append)
    text = json.dumps(value, indent=2, ensure_ascii=False)
    assert "".join(parts) == text
    assert len(parts) > 10 and max(map(len, parts)) < len(text) / 10
