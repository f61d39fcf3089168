"""Calls made only for their effect inside compiled code (print, logging, progress bars, timers, warnings): the
call kept for eager runs and skipped while Dynamo traces."""

from __future__ import annotations

import ast

from torchcompile_doctor.model.edits import Edit, ReplaceExpression, WrapStatement
from torchcompile_doctor.transforms.line_code import dotted_name
from torchcompile_doctor.transforms.site import Site
from torchcompile_doctor.transforms.statements import is_call_expression, simple_statement

NOT_COMPILING = "not torch.compiler.is_compiling()"


def guard_is_compiling(site: Site) -> tuple[Edit, ...] | str:
    """`print(x)` -> `if not torch.compiler.is_compiling():\n    print(x)`: only a call whose value is not used
    (an assignment under the guard would leave its name unbound while compiled)."""
    statement = simple_statement(site)
    if isinstance(statement, str):
        return statement
    if not is_call_expression(statement.node):
        return f"line {site.line} is not a call made for its effect"
    return (WrapStatement(statement.node.lineno, NOT_COMPILING),)


# progress bars that wrap an iterable and only report on it
_PROGRESS = frozenset({"tqdm", "track", "progress_bar", "alive_it"})


def unwrap_progress(site: Site) -> tuple[Edit, ...] | str:
    """`for block in tqdm(self.blocks, desc="blocks"):` -> `for block in self.blocks:`: the plain iterable, the
    progress bar (which Dynamo does not trace) left out of compiled code."""
    node = site.statement()
    if not isinstance(node, (ast.For, ast.AsyncFor)) or node.lineno != site.line:
        return f"line {site.line} is no `for` loop"
    call = node.iter
    name = dotted_name(call.func) if isinstance(call, ast.Call) else None
    if not isinstance(call, ast.Call) or (name or "").rsplit(".", 1)[-1] not in _PROGRESS or not call.args:
        return f"the loop at line {site.line} iterates no progress bar"
    old = ast.get_source_segment(site.source, call) or ""
    return (ReplaceExpression(node.lineno, old, ast.get_source_segment(site.source, call.args[0]) or ""),)
