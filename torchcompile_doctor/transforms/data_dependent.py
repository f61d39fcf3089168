"""Values read out of a tensor inside compiled code (`.item()`, `.tolist()`, a branch on a tensor): kept a tensor,
or the branch made one `torch.where`."""

from __future__ import annotations

import ast

from torchcompile_doctor.model.edits import BranchToWhere, Edit, ReplaceStatement
from torchcompile_doctor.transforms.line_code import without_call
from torchcompile_doctor.transforms.site import Site
from torchcompile_doctor.transforms.statements import simple_statement

# Python's conversion of a number, and the tensor method that gives the same value (a float stays as it is: a 0-d
# tensor's value in arithmetic with the graph's tensors is the number's)
_ITEM_CONVERSIONS = {"int": ".long()", "float": "", "bool": ".bool()"}


def _without(site: Site, call: str, conversions: dict[str, str]) -> tuple[Edit, ...] | str:
    statement = simple_statement(site)
    if isinstance(statement, str):
        return statement
    if call not in statement.code:
        return f"line {site.line} has no `{call}`"
    return (ReplaceStatement(statement.node.lineno, without_call(statement.code, call, conversions)),)


def drop_item(site: Site) -> tuple[Edit, ...] | str:
    """`s = h.norm().item()` -> `s = h.norm()`: a 0-d tensor stays in the graph; a conversion around it keeps its
    value as a tensor (`n = int(h.norm().item())` -> `n = h.norm().long()`: truncated as `int` truncates)."""
    return _without(site, ".item()", _ITEM_CONVERSIONS)


def drop_tolist(site: Site) -> tuple[Edit, ...] | str:
    """`ids = x.tolist()` -> `ids = x`: the tensor stays in the graph."""
    return _without(site, ".tolist()", {"list": "", "tuple": ""})


def branchless_where(site: Site) -> tuple[Edit, ...] | str:
    """`if c: x = a else: x = b` -> `x = torch.where(c, a, b)` (and the `return` forms): the edit refuses an `if`
    that is not one choice between two values."""
    node = site.statement()
    if not isinstance(node, ast.If) or node.lineno != site.line:
        return f"line {site.line} is no `if`"
    return (BranchToWhere(node.lineno),)
