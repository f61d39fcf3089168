"""What a transform reads: the site of a finding (the user's file, its text, the line torch named) and the facts
of the finding that the transforms use (a recompile's variable, the value it was first compiled for, ...)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from functools import cached_property


@dataclass(frozen=True, kw_only=True)
class SiteFacts:
    """The facts a transform reads of a finding (a recompile's): the variable that changed, its dimension, the
    module attribute, the value the first cache entry was compiled for, the optimizer hyperparameter."""

    variable: str | None = None
    dim: int | str | None = None
    attribute: str | None = None
    first_value: str | None = None
    hyperparameter: str | None = None
    passed: str | None = None  # what the user's call line passes for the variable (`torch.stack(values)`, `k`)
    marked: str | None = None  # what `mark_dynamic` gets: that, or the name it is bound to first
    mark_call: str | None = None  # torch's marking to write (MARK_DYNAMIC unless said)
    tied: tuple[tuple[str, str, int], ...] | None = None  # inputs of the same length: (passed, marked, dim)
    tied_hidden: bool | None = None  # an input tied to it that the call line does not show: no rewrite
    none_argument: str | None = None  # an argument the user's call left out, used while None in the library
    none_argument_value: str | None = None  # what the call can pass for it, meaning what the library fills in
    branched_argument: str | None = None  # an argument the user's call passes that the library branches on
    sweep_items: int | None = None  # a sweep whose recompiles are inherent (transforms/sweeps.py): its items
    sweep_loop: int | None = None  # and the line of its loop


@dataclass(frozen=True)
class Site:
    """Where a fix is made: a file of the user's (as the run named it), its text, and the line torch named."""

    path: str
    source: str
    line: int
    facts: SiteFacts = field(default_factory=SiteFacts)

    @cached_property
    def tree(self) -> ast.Module | None:
        """The file's syntax tree, parsed once (None: it does not parse)."""
        try:
            return ast.parse(self.source)
        except SyntaxError:
            return None

    def statement(self) -> ast.stmt | None:
        """The innermost statement holding the line (a compound statement's header holds its own lines only)."""
        tree = self.tree
        return innermost_statement(tree, self.line) if tree is not None else None

    def code(self, node: ast.AST) -> str:
        """The node's source text (a statement's lines after its first keep their indentation)."""
        return ast.get_source_segment(self.source, node) or ""

    def function(self) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The innermost function holding the line."""
        tree = self.tree
        found = None
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _holds(node, self.line):
                if found is None or node.lineno >= found.lineno:
                    found = node
        return found

    def enclosing_class(self) -> ast.ClassDef | None:
        tree = self.tree
        found = None
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, ast.ClassDef) and _holds(node, self.line):
                if found is None or node.lineno >= found.lineno:
                    found = node
        return found


def _holds(node: ast.stmt, line: int) -> bool:
    return node.lineno <= line <= (node.end_lineno or node.lineno)


def innermost_statement(tree: ast.Module, line: int) -> ast.stmt | None:
    found: ast.stmt | None = None
    body: list[ast.stmt] = list(tree.body)
    while body:
        inner = next((s for s in body if _holds(s, line)), None)
        if inner is None:
            break
        found = inner
        body = [s for field_ in ("body", "orelse", "finalbody") for s in getattr(inner, field_, [])]
        body += [s for block in (*getattr(inner, "handlers", []), *getattr(inner, "cases", [])) for s in block.body]
        if any(_holds(s, line) for s in body):
            continue
        break
    return found


def top_statement(tree: ast.Module, line: int) -> ast.stmt | None:
    """The module-level statement (a def or class) holding the line: new module-level code goes before it."""
    return next((s for s in tree.body if s.lineno <= line <= (s.end_lineno or s.lineno)), None)


def first_line(statement: ast.stmt) -> int:
    """The statement's first line, its decorators' included: where code inserted before it goes."""
    decorators: list[ast.expr] = getattr(statement, "decorator_list", [])
    return min([statement.lineno, *(d.lineno for d in decorators)])
