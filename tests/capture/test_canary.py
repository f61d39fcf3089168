"""The canary lane's torch settings (capture/canary.py): `TORCHCOMPILE_DOCTOR_DYNAMO_CONFIG` read as Python
literals, never run; a malformed entry is one line that names it. `make test-canary` runs the live capture tests
with it set (the README's "Supported torch")."""

from __future__ import annotations

import pytest

from torchcompile_doctor.capture.canary import DYNAMO_CONFIG_ENV, canary_settings


def test_settings_are_literals():
    assert canary_settings("nested_graph_breaks=True, recompile_limit=4,  ,name='x'") == {
        "nested_graph_breaks": True,
        "recompile_limit": 4,
        "name": "x",
    }


def test_a_value_that_is_no_literal_stays_text_and_is_never_run():
    assert canary_settings("x=__import__('os').system('false')") == {"x": "__import__('os').system('false')"}
    assert canary_settings("x=[1]") == {"x": "[1]"}  # no containers: the settings a lane flips are scalars


def test_the_environment_is_read_when_no_text_is_given(monkeypatch):
    monkeypatch.setenv(DYNAMO_CONFIG_ENV, "nested_graph_breaks=True")
    assert canary_settings() == {"nested_graph_breaks": True}
    monkeypatch.delenv(DYNAMO_CONFIG_ENV)
    assert canary_settings() == {}


@pytest.mark.parametrize("text", ["nested_graph_breaks", "=True", "a b=1"])
def test_a_malformed_entry_is_named(text):
    with pytest.raises(ValueError, match=DYNAMO_CONFIG_ENV):
        canary_settings(text)
