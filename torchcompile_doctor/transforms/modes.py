"""Grad mode, `requires_grad`, inference mode or autocast that differ on one call of compiled code: that odd
call made on the eager module or function, so the compiled one keeps one mode and one graph."""

from __future__ import annotations

import ast

from torchcompile_doctor.model.edits import Edit, ReplaceExpression
from torchcompile_doctor.transforms.line_code import dotted_name
from torchcompile_doctor.transforms.site import Site


def _compiled_names(tree: ast.Module) -> dict[str, str]:
    """`model = torch.compile(net, ...)` anywhere in the file: {"model": "net"} where what is compiled is a name
    (or an attribute of one) the call site can use as well."""
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            continue
        value = node.value
        if isinstance(value, ast.Call) and dotted_name(value.func) == "torch.compile" and value.args:
            eager = dotted_name(value.args[0])
            if eager is not None:
                found[node.targets[0].id] = eager
    return found


def eager_call(site: Site) -> tuple[Edit, ...] | str:
    """`low = model(batches[0])` -> `low = net(batches[0])` where `model = torch.compile(net)`: the one call whose
    mode differs runs eagerly, the compiled model keeps the mode every other call has."""
    node, tree = site.statement(), site.tree
    if node is None or tree is None:
        return f"no statement at line {site.line}"
    compiled = _compiled_names(tree)
    calls = [
        c
        for c in ast.walk(node)
        if isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id in compiled and c.lineno == site.line
    ]
    if not calls:
        return f"line {site.line} calls no model compiled in this file by name"
    name = calls[0].func.id if isinstance(calls[0].func, ast.Name) else ""
    return (ReplaceExpression(node.lineno, name, compiled[name]),)
