"""Calls made only for their effect inside compiled code (print, logging, progress bars, timers, warnings): the
call kept for eager runs and skipped while Dynamo traces."""

from __future__ import annotations

from torchcompile_doctor.model.edits import Edit, WrapStatement
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
