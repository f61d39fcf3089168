"""Mutations Dynamo cannot trace (an in-place detach of an input, `.data` writes): the functional form."""

from __future__ import annotations

import ast

from torchcompile_doctor.model.edits import Edit, ReplaceStatement
from torchcompile_doctor.transforms.site import Site
from torchcompile_doctor.transforms.statements import simple_statement


def detach_out_of_place(site: Site) -> tuple[Edit, ...] | str:
    """`target.detach_()` -> `target = target.detach()` (and `requires_grad_` likewise): the name bound to a new
    tensor instead of the input changed in place."""
    statement = simple_statement(site)
    if isinstance(statement, str):
        return statement
    node = statement.node
    call = node.value if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) else None
    func = call.func if call is not None else None
    if not isinstance(func, ast.Attribute) or func.attr not in ("detach_",) or not isinstance(func.value, ast.Name):
        return f"line {site.line} is not `NAME.detach_()`"
    name = func.value.id
    return (ReplaceStatement(node.lineno, f"{name} = {name}.detach()"),)


def data_write_no_grad(site: Site) -> tuple[Edit, ...] | str:
    """`p.data.mul_(0.9)` / `p.data = x` -> under `torch.no_grad()` without `.data`: the same write, traceable."""
    statement = simple_statement(site)
    if isinstance(statement, str):
        return statement
    code = statement.code
    if ".data" not in code or "\n" in code:
        return f"line {site.line} does not write through `.data`"
    node = statement.node
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and ast.unparse(node.targets[0]).endswith(".data"):
        target = ast.unparse(node.targets[0]).removesuffix(".data")
        body = f"{target}.copy_({ast.get_source_segment(site.source, node.value)})"
    elif isinstance(node, ast.Expr):
        body = code.replace(".data.", ".")
    else:
        return f"line {site.line} does not write through `.data`"
    if ".data" in body:
        return f"line {site.line} reads `.data` more than once"
    return (ReplaceStatement(node.lineno, f"with torch.no_grad():\n    {body}"),)
