"""Grad mode, `requires_grad`, inference mode or autocast that differ on one call of compiled code: that odd
call made on the eager module or function, so the compiled one keeps one mode and one graph."""

from __future__ import annotations

import ast

from torchcompile_doctor.model.edits import Edit, ReplaceExpression
from torchcompile_doctor.transforms.call_source import imports_torch
from torchcompile_doctor.transforms.line_code import dotted_name, is_compile
from torchcompile_doctor.transforms.site import Site


def _compiled_names(tree: ast.Module) -> dict[str, str]:
    """`model = torch.compile(net, ...)` (or `self.loss_fn = torch.compile(self.compute_loss)`) anywhere in the
    file: {"model": "net"} where what is compiled is a name (or an attribute of one) the call site can use as
    well."""
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target, value = dotted_name(node.targets[0]), node.value
        if target and isinstance(value, ast.Call) and is_compile(value) and value.args:
            eager = dotted_name(value.args[0])
            if eager is not None:
                found[target] = eager
    return found


def _compiled_call(site: Site) -> tuple[ast.stmt, str, str] | str:
    """(the statement, the compiled callable's name, the eager one's) of the call at the site's line of a callable
    compiled in this file by name, else why not."""
    node, tree = site.statement(), site.tree
    if node is None or tree is None:
        return f"no statement at line {site.line}"
    compiled = _compiled_names(tree)
    names = [
        name
        for c in ast.walk(node)
        if isinstance(c, ast.Call) and c.lineno == site.line and (name := dotted_name(c.func)) in compiled
    ]
    if not names:
        return f"line {site.line} calls no model compiled in this file by name"
    return node, names[0], compiled[names[0]]


def eager_call(site: Site) -> tuple[Edit, ...] | str:
    """`low = model(batches[0])` -> `low = net(batches[0])` where `model = torch.compile(net)`: the one call whose
    mode differs runs eagerly, the compiled model keeps the mode every other call has."""
    found = _compiled_call(site)
    if isinstance(found, str):
        return found
    node, name, eager = found
    return (ReplaceExpression(node.lineno, name, eager),)


def eager_call_without_grad(site: Site) -> tuple[Edit, ...] | str:
    """`loss = self.loss_fn(x, y)` on a line every phase runs, with grad on to train and off to validate ->
    `loss = (self.loss_fn if torch.is_grad_enabled() else self.compute_loss)(x, y)`: the compiled function keeps
    the grad mode it trains in, the calls with gradients off run eagerly (no second graph for them)."""
    found = _compiled_call(site)
    if isinstance(found, str):
        return found
    if not imports_torch(site.source):
        return "the file does not `import torch`, which the choice names"
    node, name, eager = found
    # the edit brackets the choice where it is called (patches/edits.py: what binds looser than it replaces)
    return (ReplaceExpression(node.lineno, name, f"{name} if torch.is_grad_enabled() else {eager}"),)
