"""NumPy and math calls inside compiled code: the torch op of the same meaning, from a table."""

from __future__ import annotations

import ast
import re

from torchcompile_doctor.model.edits import Edit, ReplaceExpression, ReplaceStatement
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


# math functions on a tensor (they read it as a Python float: a break) and the torch op of the same meaning
_MATH_IN_TORCH = {
    "exp": "exp",
    "log": "log",
    "log2": "log2",
    "log10": "log10",
    "sqrt": "sqrt",
    "sin": "sin",
    "cos": "cos",
    "tan": "tan",
    "tanh": "tanh",
    "fabs": "abs",
    "floor": "floor",
    "ceil": "ceil",
    "erf": "erf",
    "atan2": "atan2",
    "pow": "pow",
}


def math_to_torch(site: Site) -> tuple[Edit, ...] | str:
    """`y / math.exp(self.log_t)` -> `y / torch.exp(self.log_t)`: a math call on a tensor converts it to a
    Python float (a break); its torch twin keeps it in the graph."""
    node = site.statement()
    if node is None:
        return f"no statement at line {site.line}"
    header = [node.test] if hasattr(node, "test") else [node]
    calls = [
        c
        for part in header
        for c in ast.walk(part)
        if isinstance(c, ast.Call)
        and isinstance(c.func, ast.Attribute)
        and isinstance(c.func.value, ast.Name)
        and c.func.value.id == "math"
        and c.func.attr in _MATH_IN_TORCH
        and c.lineno <= site.line <= (c.end_lineno or c.lineno)
    ]
    if not calls:
        return f"line {site.line} calls no math function with a torch twin"
    edits: list[Edit] = []
    for call in calls:
        old = ast.get_source_segment(site.source, call) or ""
        func = call.func if isinstance(call.func, ast.Attribute) else None
        new = f"torch.{_MATH_IN_TORCH[func.attr if func else '']}" + old[len(ast.unparse(call.func)) :]
        edits.append(ReplaceExpression(node.lineno, old, new))
    return tuple(edits[:1])  # one call at a time: two edits of one statement do not combine
