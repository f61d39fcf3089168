"""Changes to the user's code, made on its concrete syntax tree (libcst), so that everything else in the file
stays as the user wrote it: formatting, comments, blank lines. Each edit is anchored at a line torch or the
doctor named: the innermost statement that holds that line. Nothing here runs the code it edits."""

from __future__ import annotations

import ast
import functools
import typing
from collections.abc import Sequence

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from torchcompile_doctor.model.edits import (
    AddKeyword,
    AddParameter,
    AfterTorchImport,
    BranchToWhere,
    Edit,
    FileEdit,
    InsertAfter,
    InsertBefore,
    RemoveStatement,
    ReplaceExpression,
    ReplaceStatement,
    WrapArgument,
    WrapStatement,
)

__all__ = [  # the edit kinds live with the records (model/edits.py); made here
    "AddKeyword",
    "AddParameter",
    "AfterTorchImport",
    "BranchToWhere",
    "Edit",
    "EditError",
    "FileEdit",
    "InsertAfter",
    "InsertBefore",
    "RemoveStatement",
    "ReplaceExpression",
    "ReplaceStatement",
    "WrapArgument",
    "WrapStatement",
    "edit_source",
]


class EditError(ValueError):
    """An edit that cannot be made where it is anchored (no statement there, or two edits of one statement)."""


_ANCHORED = (
    InsertBefore,
    InsertAfter,
    ReplaceStatement,
    RemoveStatement,
    WrapStatement,
    AddKeyword,
    BranchToWhere,
    WrapArgument,
    ReplaceExpression,
    AddParameter,
)


def edit_source(source: str, edits: Sequence[Edit]) -> str:
    """`source` with every edit made; raises EditError when an edit has no statement to stand at, or two edits
    change one statement in ways that do not combine, and when the file, an edit's code or the edited file does
    not parse (a candidate that would write code that does not run is dropped, never written)."""
    try:
        module = _parsed(source)
        anchored = [edit for edit in edits if isinstance(edit, _ANCHORED)]
        if anchored:
            module = _edit_statements(module, anchored)
        for edit in edits:
            if isinstance(edit, AfterTorchImport):
                module = _after_torch_import(module, edit.code)
    except cst.ParserSyntaxError as error:
        raise EditError(f"code that does not parse: {str(error).splitlines()[0]}") from error
    try:
        ast.parse(module.code)
    except SyntaxError as error:
        raise EditError(f"the edited file does not parse (line {error.lineno})") from error
    return module.code


@functools.lru_cache(maxsize=16)
def _parsed(source: str) -> cst.Module:
    """A file's tree, parsed once for the many edits tried on it (the report builds each transform on the file;
    libcst trees are immutable, so one tree serves them all)."""
    return cst.parse_module(source)


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
        self.branchless: dict[int, cst.SimpleStatementLine] = {}  # id of an `if` -> what replaces it
        self.removed: set[int] = set()  # ids of statements a branchless `if` took in (its `return b`)

    def _plan_branches(self, body: Sequence[cst.BaseStatement]) -> None:
        """A BranchToWhere's replacement, made from the block as parsed (its lines are the edit's lines)."""
        lines = {edit.line for edit in self.edits if isinstance(edit, BranchToWhere)}
        for at, statement in enumerate(body):
            if isinstance(statement, cst.If) and self.get_metadata(PositionProvider, statement).start.line in lines:
                made = _branchless(body, at)
                if made is None:
                    line = self.get_metadata(PositionProvider, statement).start.line
                    raise EditError(f"the `if` at line {line} is not one choice between two values")
                small, used = made
                self.branchless[id(statement)] = cst.SimpleStatementLine(body=[small])
                self.removed.update(id(taken) for taken in body[at + 1 : at + used])

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.IndentedBlock, cst.Module)):
            self._plan_branches(node.body)
        if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            position = self.get_metadata(PositionProvider, node)
            start, end = position.start.line, position.end.line
            if isinstance(node, cst.BaseCompoundStatement):  # its header: the lines before its body
                end = self.get_metadata(PositionProvider, node.body).start.line
                for decorator in getattr(node, "decorators", ()):  # a decorator's line is the def's too
                    start = min(start, self.get_metadata(PositionProvider, decorator).start.line)
            for index, edit in enumerate(self.edits):
                if start <= edit.line <= end:  # type: ignore[union-attr]
                    self.anchors[index] = id(node)  # visited outer first: a deeper statement replaces it
        return True

    # libcst types on_leave generically over the node's type; a statement may become several statements here
    def on_leave(  # type: ignore[override]
        self, original_node: cst.CSTNode, updated_node: cst.CSTNode
    ) -> cst.CSTNode | cst.FlattenSentinel[cst.BaseStatement]:
        edits = [e for i, e in enumerate(self.edits) if self.anchors.get(i) == id(original_node)]
        if id(original_node) in self.removed:
            if edits:
                raise EditError(f"two changes of the statement at line {edits[0].line}")  # type: ignore[union-attr]
            return cst.RemovalSentinel.REMOVE  # type: ignore[return-value]
        if not edits or not isinstance(updated_node, cst.BaseStatement):
            return updated_node
        if any(isinstance(e, BranchToWhere) for e in edits):
            if len(edits) > 1:
                raise EditError(f"two changes of the statement at line {edits[0].line}")  # type: ignore[union-attr]
            if id(original_node) not in self.branchless:
                raise EditError(f"no `if` at line {edits[0].line}")  # type: ignore[union-attr]
            return self.branchless[id(original_node)].with_changes(leading_lines=_leading_lines(updated_node))
        return _changed(updated_node, edits)  # type: ignore[return-value]


def _edit_statements(module: cst.Module, edits: Sequence[Edit]) -> cst.Module:
    editor = _StatementEditor(edits)
    changed = MetadataWrapper(module).visit(editor)
    missing = [edit for index, edit in enumerate(edits) if index not in editor.anchors]
    if missing:
        raise EditError(f"no statement at line {', '.join(str(edit.line) for edit in missing)}")  # type: ignore[union-attr]
    return changed


def _changed(
    statement: cst.BaseStatement, edits: Sequence[Edit]
) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
    replacing = [e for e in edits if isinstance(e, (ReplaceStatement, WrapStatement, RemoveStatement))]
    if len(replacing) > 1 or (replacing and isinstance(replacing[0], RemoveStatement) and len(edits) > 1):
        raise EditError(f"two changes of the statement at line {replacing[0].line}")
    if replacing and isinstance(replacing[0], RemoveStatement):
        return cst.RemovalSentinel.REMOVE
    statement = _within(statement, edits)
    leading = _leading_lines(statement)
    result = _replaced(statement, replacing, leading)
    inserted = [s for e in edits if isinstance(e, InsertBefore) for s in _statements(e.code)]
    if inserted:
        _place_inserted(statement, inserted, result, leading)
    appended = [s for e in edits if isinstance(e, InsertAfter) for s in _statements(e.code)]
    statements = [*inserted, *result, *appended]
    return statements[0] if len(statements) == 1 else cst.FlattenSentinel(statements)


def _within(statement: cst.BaseStatement, edits: Sequence[Edit]) -> cst.BaseStatement:
    """The statement with the edits made inside it: a keyword added, an argument wrapped, an expression replaced."""
    for edit in edits:
        if isinstance(edit, AddKeyword):
            statement = _with_keyword(statement, edit)
        elif isinstance(edit, WrapArgument):
            statement = _with_wrapped_argument(statement, edit)
        elif isinstance(edit, ReplaceExpression):
            statement = _with_expression_replaced(statement, edit)
        elif isinstance(edit, AddParameter):
            statement = _with_parameter(statement, edit)
    return statement


def _with_parameter(statement: cst.BaseStatement, edit: AddParameter) -> cst.BaseStatement:
    """The parameter added after the function's positional ones (refused after one with a default)."""
    if not isinstance(statement, cst.FunctionDef):
        raise EditError(f"no `def` at line {edit.line}")
    params = statement.params
    if any(p.default is not None for p in params.params) or edit.name in {p.name.value for p in params.params}:
        raise EditError(f"`{edit.name}` cannot be added after the parameters of line {edit.line}")
    added = [*params.params, cst.Param(name=cst.Name(edit.name))]
    return statement.with_changes(params=params.with_changes(params=added))


def _place_inserted(
    statement: cst.BaseStatement,
    inserted: list[cst.BaseStatement],
    result: list[cst.BaseStatement],
    leading: Sequence[cst.EmptyLine],
) -> None:
    """The blank lines and comments above the statement shared out (in place) with the statements put before it."""
    if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):  # module code before a definition:
        blank = [line for line in leading if line.comment is None]  # the blank lines above it, above both
        inserted[0] = inserted[0].with_changes(leading_lines=blank or [cst.EmptyLine()] * 2)
        result[0] = result[0].with_changes(leading_lines=leading or [cst.EmptyLine()] * 2)
    else:  # the new lines go after the statement's own leading comments, just before it
        result[0] = result[0].with_changes(leading_lines=())
        inserted[0] = inserted[0].with_changes(leading_lines=leading)


def _replaced(
    statement: cst.BaseStatement, replacing: Sequence[Edit], leading: Sequence[cst.EmptyLine]
) -> list[cst.BaseStatement]:
    """The statement as its replacing edit (at most one) leaves it, its leading comments kept on top."""
    result: list[cst.BaseStatement] = [statement]
    for edit in replacing:
        if isinstance(edit, ReplaceStatement):
            result = _statements(edit.code)
            comment = statement.trailing_whitespace if isinstance(statement, cst.SimpleStatementLine) else None
            if comment is not None and comment.comment is not None and isinstance(result[-1], cst.SimpleStatementLine):
                result[-1] = result[-1].with_changes(trailing_whitespace=comment)  # the user's comment stays theirs
        elif isinstance(edit, WrapStatement):
            body = statement.with_changes(leading_lines=())
            result = [cst.If(test=cst.parse_expression(edit.condition), body=cst.IndentedBlock(body=[body]))]
        result[0] = result[0].with_changes(leading_lines=leading)
    return result


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
        args = list(updated_node.args)
        passed = [i for i, arg in enumerate(args) if arg.keyword is not None and arg.keyword.value == self.edit.keyword]
        if passed and self.edit.replace:  # its value set, where the user wrote it
            args[passed[0]] = args[passed[0]].with_changes(value=cst.parse_expression(self.edit.value))
            return updated_node.with_changes(args=args)
        if passed:
            return updated_node
        keyword = _keyword_arg(self.edit)
        if args and args[-1].comma is cst.MaybeSentinel.DEFAULT:
            args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        return updated_node.with_changes(args=[*args, keyword])


def _called_decorator(statement: cst.BaseStatement, edit: AddKeyword) -> cst.BaseStatement | None:
    """`@torch.compile` made `@torch.compile(keyword=value)`: a bare decorator named `edit.callee`."""
    decorators = getattr(statement, "decorators", ())
    for index, decorator in enumerate(decorators):
        if edit.callee is not None and _dotted(decorator.decorator) == edit.callee:
            call = cst.Call(func=decorator.decorator, args=[_keyword_arg(edit)])
            changed = [*decorators[:index], decorator.with_changes(decorator=call), *decorators[index + 1 :]]
            return statement.with_changes(decorators=changed)
    return None


def _keyword_arg(edit: AddKeyword) -> cst.Arg:
    return cst.Arg(
        keyword=cst.Name(edit.keyword),
        value=cst.parse_expression(edit.value),
        equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
    )


def _with_keyword(statement: cst.BaseStatement, edit: AddKeyword) -> cst.BaseStatement:
    decorated = _called_decorator(statement, edit)
    if decorated is not None:
        return decorated
    adder = _KeywordAdder(edit)
    changed = statement.visit(adder)
    if not adder.done or not isinstance(changed, cst.BaseStatement):
        raise EditError(f"no call{' of ' + edit.callee if edit.callee else ''} at line {edit.line}")
    return changed


class _ArgumentWrapper(cst.CSTTransformer):
    """The first argument (outermost call first) passed by the keyword, else by the code, `edit.argument`."""

    def __init__(self, edit: WrapArgument) -> None:
        super().__init__()
        self.edit = edit
        self.target: cst.Arg | None = None

    def visit_Call(self, node: cst.Call) -> bool:  # noqa: N802 - libcst's visitor naming
        if self.target is None:
            by_keyword = [a for a in node.args if a.keyword is not None and a.keyword.value == self.edit.argument]
            by_code = [a for a in node.args if _code(a.value) == self.edit.argument]
            self.target = next(iter(by_keyword or by_code), None)
        return True

    def leave_Arg(self, original_node: cst.Arg, updated_node: cst.Arg) -> cst.Arg:  # noqa: N802
        if original_node is not self.target:
            return updated_node
        wrapped = self.edit.template.replace("{value}", _code(updated_node.value))
        return updated_node.with_changes(value=cst.parse_expression(wrapped))


def _code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


def _with_wrapped_argument(statement: cst.BaseStatement, edit: WrapArgument) -> cst.BaseStatement:
    wrapper = _ArgumentWrapper(edit)
    changed = statement.visit(wrapper)
    if wrapper.target is None or not isinstance(changed, cst.BaseStatement):
        raise EditError(f"no call at line {edit.line} passes `{edit.argument}`")
    return changed


# How tightly an operator binds (Python's precedence table, loosest first); atoms, calls, attributes, subscripts
# and anything in parentheses bind tightest.
_BINARY_BINDING = {
    cst.BitOr: 6,
    cst.BitXor: 7,
    cst.BitAnd: 8,
    cst.LeftShift: 9,
    cst.RightShift: 9,
    cst.Add: 10,
    cst.Subtract: 10,
    cst.Multiply: 11,
    cst.Divide: 11,
    cst.FloorDivide: 11,
    cst.Modulo: 11,
    cst.MatrixMultiply: 11,
    cst.Power: 13,
}
_TIGHTEST = 15


def _binding(node: cst.BaseExpression) -> int:
    """How tightly `node`'s outermost operator binds (a higher number binds tighter)."""
    if getattr(node, "lpar", ()):
        return _TIGHTEST
    if isinstance(node, (cst.NamedExpr, cst.Tuple)):
        return -1
    if isinstance(node, cst.Lambda):
        return 0
    if isinstance(node, cst.IfExp):
        return 1
    if isinstance(node, cst.BooleanOperation):
        return 2 if isinstance(node.operator, cst.Or) else 3
    if isinstance(node, cst.UnaryOperation):
        return 4 if isinstance(node.operator, cst.Not) else 12
    if isinstance(node, cst.Comparison):
        return 5
    if isinstance(node, cst.BinaryOperation):
        return _BINARY_BINDING.get(type(node.operator), 6)
    if isinstance(node, cst.Await):
        return 14
    return _TIGHTEST


class _ExpressionReplacer(cst.CSTTransformer):
    def __init__(self, edit: ReplaceExpression) -> None:
        super().__init__()
        self.edit = edit
        self.done = False

    def on_leave(  # type: ignore[override]
        self, original_node: cst.CSTNode, updated_node: cst.CSTNode
    ) -> cst.CSTNode:
        if self.done or not isinstance(updated_node, cst.BaseExpression) or _code(original_node) != self.edit.old:
            return updated_node
        self.done = True
        new = cst.parse_expression(self.edit.new)
        if getattr(updated_node, "lpar", ()):
            return new.with_changes(lpar=updated_node.lpar, rpar=getattr(updated_node, "rpar", ()))
        if _binding(new) < _binding(updated_node):  # `f` -> `(f if c else g)` in `f(x)`: what the line does stays
            return new.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        return new


def _with_expression_replaced(statement: cst.BaseStatement, edit: ReplaceExpression) -> cst.BaseStatement:
    replacer = _ExpressionReplacer(edit)
    if isinstance(statement, cst.BaseCompoundStatement) and hasattr(statement, "test"):  # its header only
        header = statement.test.visit(replacer)
        changed: cst.CSTNode = statement.with_changes(test=header)
    else:
        changed = typing.cast(cst.CSTNode, statement.visit(replacer))
    if not replacer.done or not isinstance(changed, cst.BaseStatement):
        raise EditError(f"no `{edit.old}` at line {edit.line}")
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

    # each statement once: a setting made already (two fixes share it), an import the file made before this point
    # (one further down runs too late for the setting)
    def is_import(new: cst.BaseStatement) -> bool:
        return isinstance(new, cst.SimpleStatementLine) and isinstance(new.body[0], (cst.Import, cst.ImportFrom))

    wanted = _statements(code)
    settings = [s for s in wanted if not is_import(s)]
    if settings and all(any(b.deep_equals(s) for b in body) for s in settings):
        return module  # made already, with the imports it needs (they go in together)
    new = [s for s in wanted if not any(b.deep_equals(s) for b in (body[: at + 1] if is_import(s) else body))]
    return module.with_changes(body=[*body[: at + 1], *new, *body[at + 1 :]])


# -- a data-dependent branch made branchless ---------------------------------------------------------------------
def _only_statement(block: cst.BaseSuite | None) -> cst.BaseSmallStatement | None:
    """The one small statement a block holds (`return a`, `x = a`), else None."""
    if not isinstance(block, cst.IndentedBlock) or len(block.body) != 1:
        return None
    return _small(block.body[0])


def _small(statement: cst.BaseStatement | None) -> cst.BaseSmallStatement | None:
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    return statement.body[0]


class _ItemDropper(cst.CSTTransformer):
    """`h.mean().item() > 10` -> `h.mean() > 10`: the condition stays a tensor (`.item()` would break the graph)."""

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:  # noqa: N802
        func = updated_node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "item" and not updated_node.args:
            return func.value
        return updated_node


def _where(condition: cst.BaseExpression, then: cst.BaseExpression, otherwise: cst.BaseExpression) -> cst.Call:
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    condition = typing.cast(cst.BaseExpression, condition.visit(_ItemDropper()))
    return cst.Call(
        func=cst.parse_expression("torch.where"),
        args=[cst.Arg(condition, comma=comma), cst.Arg(then, comma=comma), cst.Arg(otherwise)],
    )


def _assignment(statement: cst.BaseSmallStatement | None) -> tuple[str, cst.Assign] | None:
    """(the target's code, the statement) for `x = a` with one target."""
    if isinstance(statement, cst.Assign) and len(statement.targets) == 1:
        return cst.Module(body=[]).code_for_node(statement.targets[0].target), statement
    return None


def _branchless(statements: Sequence[cst.BaseStatement], at: int) -> tuple[cst.BaseSmallStatement, int] | None:
    """What replaces the `if` at statements[at], and how many statements it replaces (None: not this shape)."""
    branch = statements[at]
    if not isinstance(branch, cst.If) or isinstance(branch.orelse, cst.If):  # an elif chooses among more
        return None
    then = _only_statement(branch.body)
    otherwise = _only_statement(branch.orelse.body) if isinstance(branch.orelse, cst.Else) else None
    if branch.orelse is not None and otherwise is None:
        return None
    if isinstance(then, cst.Return) and then.value is not None:
        used = 1
        if branch.orelse is None:  # `if c: return a` and then `return b`
            otherwise, used = (_small(statements[at + 1]) if at + 1 < len(statements) else None), 2
        if isinstance(otherwise, cst.Return) and otherwise.value is not None:
            return cst.Return(value=_where(branch.test, then.value, otherwise.value)), used
        return None
    assigned = _assignment(then)
    if assigned is None:
        return None
    target, statement = assigned
    if otherwise is None:  # `if c: x = a`: x keeps its value where c is false
        kept: cst.BaseExpression = statement.targets[0].target
        return statement.with_changes(value=_where(branch.test, statement.value, kept)), 1
    other = _assignment(otherwise)
    if other is None or other[0] != target:
        return None
    return statement.with_changes(value=_where(branch.test, statement.value, other[1].value)), 1
