"""Changes to the user's code, made on its concrete syntax tree (libcst), so that everything else in the file
stays as the user wrote it: formatting, comments, blank lines. Each edit is anchored at a line torch or the
doctor named: the innermost statement that holds that line. Nothing here runs the code it edits."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider


class EditError(ValueError):
    """An edit that cannot be made where it is anchored (no statement there, or two edits of one statement)."""


@dataclass(frozen=True)
class InsertBefore:
    """New statements before the statement at `line`, at its indentation (`torch._dynamo.mark_dynamic(x, 0)`)."""

    line: int
    code: str


@dataclass(frozen=True)
class ReplaceStatement:
    """The statement at `line` replaced by `code` (one or more statements)."""

    line: int
    code: str


@dataclass(frozen=True)
class WrapStatement:
    """The statement at `line` put under `if CONDITION:` (`not torch.compiler.is_compiling()`)."""

    line: int
    condition: str


@dataclass(frozen=True)
class AddKeyword:
    """`keyword=value` added to the call at `line` (the outermost call of that statement whose callee is
    `callee`, or the outermost call when `callee` is None); left alone when the call passes it already."""

    line: int
    keyword: str
    value: str
    callee: str | None = None


@dataclass(frozen=True)
class AfterTorchImport:
    """A module-level statement after the file's first `import torch` (a `torch._dynamo.config` setting made
    before anything is compiled)."""

    code: str


Edit = InsertBefore | ReplaceStatement | WrapStatement | AddKeyword | AfterTorchImport
_ANCHORED = (InsertBefore, ReplaceStatement, WrapStatement, AddKeyword)


def edit_source(source: str, edits: Sequence[Edit]) -> str:
    """`source` with every edit made; raises EditError when an edit has no statement to stand at, or two edits
    change one statement in ways that do not combine."""
    module = cst.parse_module(source)
    anchored = [edit for edit in edits if isinstance(edit, _ANCHORED)]
    if anchored:
        module = _edit_statements(module, anchored)
    for edit in edits:
        if isinstance(edit, AfterTorchImport):
            module = _after_torch_import(module, edit.code)
    return module.code


def _statements(code: str) -> list[cst.BaseStatement]:
    return list(cst.parse_module(code).body)


class _StatementEditor(cst.CSTTransformer):
    """Finds, for each anchored edit, the innermost statement holding its line (a statement's own lines, or a
    compound statement's header), and changes that statement on the way out."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, edits: Sequence[Edit]) -> None:
        super().__init__()
        self.edits = list(edits)
        self.anchors: dict[int, int] = {}  # edit index -> id of the innermost statement holding its line

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            position = self.get_metadata(PositionProvider, node)
            start, end = position.start.line, position.end.line
            if isinstance(node, cst.BaseCompoundStatement):  # its header: the lines before its body
                end = self.get_metadata(PositionProvider, node.body).start.line
            for index, edit in enumerate(self.edits):
                if start <= edit.line <= end:  # type: ignore[union-attr]
                    self.anchors[index] = id(node)  # visited outer first: a deeper statement replaces it
        return True

    # libcst types on_leave generically over the node's type; a statement may become several statements here
    def on_leave(  # type: ignore[override]
        self, original_node: cst.CSTNode, updated_node: cst.CSTNode
    ) -> cst.CSTNode | cst.FlattenSentinel[cst.BaseStatement]:
        edits = [e for i, e in enumerate(self.edits) if self.anchors.get(i) == id(original_node)]
        if not edits or not isinstance(updated_node, cst.BaseStatement):
            return updated_node
        return _changed(updated_node, edits)


def _edit_statements(module: cst.Module, edits: Sequence[Edit]) -> cst.Module:
    editor = _StatementEditor(edits)
    changed = MetadataWrapper(module).visit(editor)
    missing = [edit for index, edit in enumerate(edits) if index not in editor.anchors]
    if missing:
        raise EditError(f"no statement at line {', '.join(str(edit.line) for edit in missing)}")  # type: ignore[union-attr]
    return changed


def _changed(
    statement: cst.BaseStatement, edits: Sequence[Edit]
) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement]:
    replacing = [e for e in edits if isinstance(e, (ReplaceStatement, WrapStatement))]
    if len(replacing) > 1:
        raise EditError(f"two changes of the statement at line {replacing[0].line}")
    for edit in edits:
        if isinstance(edit, AddKeyword):
            statement = _with_keyword(statement, edit)
    leading = _leading_lines(statement)
    result: list[cst.BaseStatement] = [statement]
    for edit in replacing:
        if isinstance(edit, ReplaceStatement):
            result = _statements(edit.code)
        else:
            body = statement.with_changes(leading_lines=())
            result = [cst.If(test=cst.parse_expression(edit.condition), body=cst.IndentedBlock(body=[body]))]
        result[0] = result[0].with_changes(leading_lines=leading)
    inserted = [s for e in edits if isinstance(e, InsertBefore) for s in _statements(e.code)]
    if inserted:  # the new lines go after the statement's own leading comments, just before it
        result[0] = result[0].with_changes(leading_lines=())
        inserted[0] = inserted[0].with_changes(leading_lines=leading)
    statements = [*inserted, *result]
    return statements[0] if len(statements) == 1 else cst.FlattenSentinel(statements)


def _leading_lines(statement: cst.BaseStatement) -> Sequence[cst.EmptyLine]:
    """The blank lines and comments above a statement (they stay above whatever replaces it)."""
    return getattr(statement, "leading_lines", ())


def _dotted(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        owner = _dotted(node.value)
        return f"{owner}.{node.attr.value}" if owner else None
    return None


class _KeywordAdder(cst.CSTTransformer):
    def __init__(self, edit: AddKeyword) -> None:
        super().__init__()
        self.edit = edit
        self.done = False
        self._depth = 0

    def visit_Call(self, node: cst.Call) -> bool:  # noqa: N802 - libcst's visitor naming
        self._depth += 1
        return True

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:  # noqa: N802
        self._depth -= 1
        wanted = self.edit.callee is None or _dotted(original_node.func) == self.edit.callee
        if self.done or not wanted or (self.edit.callee is None and self._depth > 0):
            return updated_node
        self.done = True
        if any(arg.keyword is not None and arg.keyword.value == self.edit.keyword for arg in updated_node.args):
            return updated_node
        keyword = cst.Arg(
            keyword=cst.Name(self.edit.keyword),
            value=cst.parse_expression(self.edit.value),
            equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
        )
        args = list(updated_node.args)
        if args and args[-1].comma is cst.MaybeSentinel.DEFAULT:
            args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        return updated_node.with_changes(args=[*args, keyword])


def _with_keyword(statement: cst.BaseStatement, edit: AddKeyword) -> cst.BaseStatement:
    adder = _KeywordAdder(edit)
    changed = statement.visit(adder)
    if not adder.done or not isinstance(changed, cst.BaseStatement):
        raise EditError(f"no call{' of ' + edit.callee if edit.callee else ''} at line {edit.line}")
    return changed


def _imports_torch(statement: cst.BaseStatement) -> bool:
    if not isinstance(statement, cst.SimpleStatementLine):
        return False
    for small in statement.body:
        if isinstance(small, cst.Import) and any(_dotted(a.name) == "torch" for a in small.names):
            return True
    return False


def _after_torch_import(module: cst.Module, code: str) -> cst.Module:
    body = list(module.body)
    at = next((i for i, statement in enumerate(body) if _imports_torch(statement)), None)
    if at is None:
        raise EditError("no module-level `import torch` to put the setting after")
    new = _statements(code)
    if any(statement.deep_equals(new[0]) for statement in body):
        return module  # made already (a setting two fixes share)
    return module.with_changes(body=[*body[: at + 1], *new, *body[at + 1 :]])
