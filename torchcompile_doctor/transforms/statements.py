"""The statement a transform changes, read from the site: one simple statement alone on its lines, its code."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from torchcompile_doctor.transforms.site import Site


@dataclass(frozen=True)
class Statement:
    node: ast.stmt
    code: str  # its source, first line unindented, without a trailing comment


def simple_statement(site: Site) -> Statement | str:
    """The simple statement at the site's line (`x = f(y)`, `print(x)`), else why not."""
    node = site.statement()
    if node is None:
        return f"no statement at line {site.line}"
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For, ast.While, ast.With)):
        return f"line {site.line} is a compound statement's header"
    if isinstance(node, (ast.Try, ast.Match, ast.AsyncFor, ast.AsyncWith)):
        return f"line {site.line} is a compound statement's header"
    tree = site.tree
    same_line = [s for s in ast.walk(tree) if isinstance(s, ast.stmt) and s is not node] if tree else []
    if any(s.lineno in (node.lineno, node.end_lineno) and not _inside(s, node) for s in same_line):
        return f"line {site.line} holds more than one statement"
    return Statement(node, site.code(node))


def _inside(inner: ast.stmt, outer: ast.stmt) -> bool:
    return (outer.lineno, outer.col_offset) <= (inner.lineno, inner.col_offset) and (inner.end_lineno or 0) <= (
        outer.end_lineno or 0
    )


def is_call_expression(node: ast.stmt) -> bool:
    """A statement that is a call made for its effect (`print(x)`, `log.info(...)`, `bar.update(1)`)."""
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)


def passes(node: ast.stmt, source: str, argument: str) -> bool:
    """The statement calls something with `argument=` or with an argument whose code is `argument` (what a call
    line passes for a changing value: `delta_at(step)`, `beta`)."""
    for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
        if any(k.arg == argument for k in call.keywords):
            return True
        if any(ast.get_source_segment(source, a) == argument for a in (*call.args, *(k.value for k in call.keywords))):
            return True
    return False
