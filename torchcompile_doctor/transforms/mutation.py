"""Mutations Dynamo cannot trace (an in-place detach of an input, `.data` writes): the functional form."""

from __future__ import annotations

import ast

from torchcompile_doctor.model.edits import Edit, RemoveStatement, ReplaceStatement
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


def fresh_tensor_for_resized(site: Site) -> tuple[Edit, ...] | str:
    """`out.resize_(n, n)` and then `out.copy_(y)` on an input -> `out = y` (`return out.copy_(y)` -> `return y`):
    a fresh local tensor instead of the
    input's storage resized (a mutation Dynamo does not trace; torch's docs: use the out-of-place form). The
    function's result is the same tensor values; the caller's buffer is no longer written (the trial's printed
    output shows whether the program read it)."""
    statement = simple_statement(site)
    function = site.function()
    if isinstance(statement, str) or function is None:
        return statement if isinstance(statement, str) else "the line is in no function"
    resized = _method_call_on_name(statement.node, ("resize_", "resize_as_"))
    if resized is None:
        return f"line {site.line} is not `NAME.resize_(...)`"
    name = resized[0]
    body = _body_holding(function, statement.node)
    at = body.index(statement.node)
    for later in body[at + 1 :]:
        copied = _method_call_on_name(later, ("copy_",))
        if copied is not None and copied[0] == name and len(copied[1].args) == 1:
            value = copied[1].args[0]
            if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(value)):
                return f"what line {later.lineno} copies into `{name}` reads `{name}`"
            written = f"return {site.code(value)}" if isinstance(later, ast.Return) else f"{name} = {site.code(value)}"
            return (RemoveStatement(statement.node.lineno), ReplaceStatement(later.lineno, written))
        if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(later)):
            return f"line {later.lineno} uses `{name}` before anything is copied into it"
    return f"nothing is copied into `{name}` after line {site.line}"


def _method_call_on_name(node: ast.stmt, methods: tuple[str, ...]) -> tuple[str, ast.Call] | None:
    """(NAME, the call) for a statement `NAME.METHOD(...)` (or `return NAME.METHOD(...)`) with METHOD one of
    `methods`."""
    call = node.value if isinstance(node, (ast.Expr, ast.Return)) and isinstance(node.value, ast.Call) else None
    func = call.func if call is not None else None
    if call is None or not isinstance(func, ast.Attribute) or func.attr not in methods:
        return None
    return (func.value.id, call) if isinstance(func.value, ast.Name) else None


def _body_holding(function: ast.FunctionDef | ast.AsyncFunctionDef, node: ast.stmt) -> list[ast.stmt]:
    """The list of statements (a function's or a block's body) that holds `node`."""
    for parent in ast.walk(function):
        for field_ in ("body", "orelse", "finalbody"):
            block = getattr(parent, field_, None)
            if isinstance(block, list) and node in block:
                return block
    return [node]
