"""NumPy and math calls inside compiled code: the torch op of the same meaning, from a table."""

from __future__ import annotations

import re

from torchcompile_doctor.model.edits import Edit, ReplaceStatement
from torchcompile_doctor.transforms.line_code import RENAMED_IN_TORCH, SAME_IN_TORCH
from torchcompile_doctor.transforms.site import Site
from torchcompile_doctor.transforms.statements import simple_statement


def numpy_to_torch(site: Site) -> tuple[Edit, ...] | str:
    """`y = np.clip(x.numpy(), 0, 1)` -> `y = torch.clamp(x, 0, 1)`; a numpy function with no twin in the
    table leaves the line alone."""
    statement = simple_statement(site)
    if isinstance(statement, str):
        return statement
    after = re.sub(r"\.numpy\(\)", "", statement.code)
    # np.digitize(x, bins) == torch.bucketize(x, bins, right=True)
    after = re.sub(
        r"\bnp\.digitize\((?P<x>[^,()]+),\s*(?P<bins>[^,()]+)\)",
        r"torch.bucketize(\g<x>, torch.as_tensor(\g<bins>), right=True)",
        after,
    )
    unknown: list[str] = []

    def swap(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in SAME_IN_TORCH:
            return f"torch.{name}("
        if name in RENAMED_IN_TORCH:
            return f"torch.{RENAMED_IN_TORCH[name]}("
        unknown.append(name)
        return match.group(0)

    after = re.sub(r"\b(?:np|numpy)\.(\w+)\(", swap, after)
    if unknown:
        return f"`np.{unknown[0]}` has no torch twin in the table"
    if after == statement.code:
        return f"line {site.line} calls no numpy function"
    return (ReplaceStatement(statement.node.lineno, after),)
