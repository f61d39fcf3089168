"""The torch settings of a canary lane: `TORCHCOMPILE_DOCTOR_DYNAMO_CONFIG="nested_graph_breaks=True"` sets those
torch._dynamo.config values in every captured process, before the program compiles anything, as a future torch
release's default would be (`make test-canary` runs the live capture tests so; the README's "Supported torch" says
what changes). Values are Python literals, read with ast.literal_eval: nothing in them is run."""

from __future__ import annotations

import ast
import os

from torchcompile_doctor.model.experiment import ConfigValue

DYNAMO_CONFIG_ENV = "TORCHCOMPILE_DOCTOR_DYNAMO_CONFIG"


def canary_settings(text: str | None = None) -> dict[str, ConfigValue]:
    """`a=True,b=3` -> {"a": True, "b": 3}; a value that is no literal stays a string. Raises ValueError, one line,
    on an entry without `=`."""
    text = os.environ.get(DYNAMO_CONFIG_ENV, "") if text is None else text
    settings: dict[str, ConfigValue] = {}
    for entry in filter(None, (part.strip() for part in text.split(","))):
        key, equals, raw = entry.partition("=")
        if not equals or not key.strip().isidentifier():
            raise ValueError(f"{DYNAMO_CONFIG_ENV}: {entry!r} is not NAME=VALUE")
        try:
            value = ast.literal_eval(raw.strip())
        except (ValueError, SyntaxError):
            value = raw.strip()
        settings[key.strip()] = value if isinstance(value, bool | int | float | str) else raw.strip()
    return settings
