"""The kinds of change a fix makes to the user's code, as records: a transform (transforms/) builds them from a
finding's site, the report's before/after is rendered from them, `doctor fix` makes them (patches/edits.py). Each is
anchored at a line torch or the doctor named: the innermost statement that holds that line. A new kind is added to
`Edit` and every `match` over it (mypy lists them, through `assert_never`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


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
    `callee`, or the outermost call when `callee` is None); left alone when the call passes it already, unless
    `replace` (a compile keyword forced on the call: `dynamic=False` made `dynamic=True`)."""

    line: int
    keyword: str
    value: str
    callee: str | None = None
    replace: bool = False


@dataclass(frozen=True)
class AfterTorchImport:
    """A module-level statement after the file's first `import torch` (a `torch._dynamo.config` setting made
    before anything is compiled)."""

    code: str


@dataclass(frozen=True)
class InsertAfter:
    """New statements after the statement at `line`, at its indentation (`loss.backward()` after the call)."""

    line: int
    code: str


@dataclass(frozen=True)
class RemoveStatement:
    """The statement at `line` taken out (it moved elsewhere)."""

    line: int


@dataclass(frozen=True)
class BranchToWhere:
    """The `if` at `line` made branchless with `torch.where` (its condition a tensor): `if c: return a` and the
    `return b` after it (or its `else: return b`) become `return torch.where(c, a, b)`; `if c: x = a` with
    `else: x = b` becomes `x = torch.where(c, a, b)`, and without an else `x = torch.where(c, a, x)`."""

    line: int


@dataclass(frozen=True)
class WrapArgument:
    """An argument of a call in the statement at `line` made `template` with `{value}` its old value
    (`torch.tensor({value})`, `{value}.to(torch.float32)`): the argument passed by keyword `argument`, else the
    one whose code is `argument`, in the outermost call that passes it. A keyword keeps its name
    (`scale=float(step + 1)` -> `scale=torch.tensor(float(step + 1))`)."""

    line: int
    argument: str
    template: str


@dataclass(frozen=True)
class ReplaceExpression:
    """The first expression whose code is `old` in the statement at `line` (a compound statement's header before
    its body) made `new`: `torch.cuda.device_count()` -> `DEVICE_COUNT`, `math.exp(t)` -> `torch.exp(t)`."""

    line: int
    old: str
    new: str


@dataclass(frozen=True)
class AddParameter:
    """A parameter `name` (no default) added last among the positional parameters of the function whose `def`
    is at `line` (a value the function computed, now passed in by its callers)."""

    line: int
    name: str


Edit = (
    InsertBefore
    | InsertAfter
    | ReplaceStatement
    | RemoveStatement
    | WrapStatement
    | AddKeyword
    | AfterTorchImport
    | BranchToWhere
    | WrapArgument
    | ReplaceExpression
    | AddParameter
)


@dataclass(frozen=True)
class FileEdit:
    """An edit of one of the user's files."""

    path: Path
    edit: Edit
