"""Fix transforms for recompile rules whose fix is not at the guard's line: an optimizer hyperparameter
made a tensor where the user creates the optimizer."""

from __future__ import annotations

import re

_HYPERPARAMETER = re.compile(r"\b(?P<name>lr|weight_decay|momentum)\s*=\s*(?P<value>[^,()]+(?:\([^()]*\))?)")


def tensor_hyperparameter(line: str, facts: dict) -> str | None:
    """`torch.optim.Adam(params, lr=lr)` -> `torch.optim.Adam(params, lr=torch.tensor(lr))` for the
    hyperparameter that recompiled (`facts["hyperparameter"]`)."""
    wanted = facts.get("hyperparameter") or "lr"
    for match in _HYPERPARAMETER.finditer(line):
        value = match["value"].strip()
        if match["name"] != wanted or value.startswith("torch.tensor("):
            continue
        start, end = match.span("value")
        return f"{line[:start]}torch.tensor({value}){line[start + len(match['value'].rstrip()) :]}"
    return None
