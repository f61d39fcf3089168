"""A Python float that changes between calls and reaches a `torch.nn.functional` op that needs a Python number
there (a loss's `delta`, `beta` or `margin`, an activation's slope): torch bakes each value into the graph as a
constant, so each new value recompiles, and neither `dynamic=True` nor torch's dynamic floats help (the op
specializes the value again). A tensor passed there is no fix either: the op reads it with `.item()`, a graph
break (measured on torch 2.13 for every op of `NUMBER_OPS`, backend eager: 10 values, 8 recompiles and the limit
with a float, 0 recompiles and one break per call with a tensor). What removes the recompiles: the op written
with torch ops that take the number as a tensor (the same function), and the value passed as a 0-d tensor. Read
from the file's syntax tree; nothing here runs the code."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from torchcompile_doctor.model.edits import Edit, InsertBefore, ReplaceExpression, WrapArgument
from torchcompile_doctor.transforms.call_source import free_name_in
from torchcompile_doctor.transforms.line_code import passed_value
from torchcompile_doctor.transforms.site import Site, first_line, top_statement
from torchcompile_doctor.transforms.statements import passes, simple_statement

_REDUCED = """    if reduction == "mean":
        return loss.mean()
    return loss.sum() if reduction == "sum" else loss
"""


@dataclass(frozen=True)
class NumberOp:
    """An op of `torch.nn.functional` whose `numbers` must be Python numbers, and the same function written with
    torch ops that take them as tensors: `parameters` as the op names them, in its order (what a call may pass,
    by position or keyword), `body` the helper's body."""

    parameters: tuple[str, ...]
    numbers: tuple[str, ...]
    body: str
    refused: tuple[str, ...] = ()  # parameters of the op the helper does not honour: a call passing one is left as is


NUMBER_OPS: dict[str, NumberOp] = {
    "huber_loss": NumberOp(
        ("input", "target", "reduction", "delta"),
        ("delta",),
        "    error = (input - target).abs()\n"
        "    loss = torch.where(error < delta, 0.5 * error**2, delta * (error - 0.5 * delta))\n" + _REDUCED,
    ),
    "smooth_l1_loss": NumberOp(
        ("input", "target", "size_average", "reduce", "reduction", "beta"),
        ("beta",),
        "    error = (input - target).abs()\n"
        "    loss = torch.where(error < beta, 0.5 * error**2 / beta, error - 0.5 * beta)\n" + _REDUCED,
        ("size_average", "reduce"),
    ),
    "triplet_margin_loss": NumberOp(
        ("anchor", "positive", "negative", "margin", "p", "eps", "swap", "size_average", "reduce", "reduction"),
        ("margin",),
        "    to_positive = torch.pairwise_distance(anchor, positive, p, eps)\n"
        "    to_negative = torch.pairwise_distance(anchor, negative, p, eps)\n"
        "    loss = torch.clamp_min(margin + to_positive - to_negative, 0)\n" + _REDUCED,
        ("swap", "size_average", "reduce"),
    ),
    "margin_ranking_loss": NumberOp(
        ("input1", "input2", "target", "margin", "size_average", "reduce", "reduction"),
        ("margin",),
        "    loss = torch.clamp_min(-target * (input1 - input2) + margin, 0)\n" + _REDUCED,
        ("size_average", "reduce"),
    ),
    "leaky_relu": NumberOp(
        ("input", "negative_slope", "inplace"),
        ("negative_slope",),
        "    return torch.where(input > 0, input, input * negative_slope)\n",
        ("inplace",),
    ),
    "elu": NumberOp(
        ("input", "alpha", "inplace"),
        ("alpha",),
        "    return torch.where(input > 0, input, alpha * torch.expm1(torch.clamp(input, max=0)))\n",
        ("inplace",),
    ),
    "celu": NumberOp(
        ("input", "alpha", "inplace"),
        ("alpha",),
        "    return torch.where(input > 0, input, alpha * torch.expm1(torch.clamp(input, max=0) / alpha))\n",
        ("inplace",),
    ),
    "softplus": NumberOp(
        ("input", "beta", "threshold"),
        ("beta",),
        "    scaled = input * beta\n"
        "    soft = torch.log1p(torch.exp(torch.clamp(scaled, max=threshold))) / beta\n"
        "    return torch.where(scaled > threshold, input, soft)\n",
    ),
}
# the defaults of the op's parameters the helper keeps (the others may not be passed: `weight=`, `swap=`, ...)
_DEFAULTS = {
    "reduction": '"mean"',
    "size_average": "None",
    "reduce": "None",
    "delta": "1.0",
    "beta": "1.0",
    "margin": "1.0",
    "p": "2",
    "eps": "1e-06",
    "negative_slope": "0.01",
    "alpha": "1.0",
    "threshold": "20.0",
    "swap": "False",
    "inplace": "False",
}
_MARGIN_DEFAULTS = {"margin_ranking_loss": "0.0"}  # its margin's default differs from triplet's


@dataclass(frozen=True)
class NumberUse:
    """A call of a `NUMBER_OPS` op in the file that passes the function's parameter `variable` as one of the numbers
    the op needs: the op, the callee as written (`F.huber_loss`) and the line of its statement."""

    op: str
    callee: str
    line: int


def _op_name(call: ast.Call) -> str | None:
    """`huber_loss` of `F.huber_loss(...)`, `torch.nn.functional.huber_loss(...)`, `nn.functional.huber_loss(...)`."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr not in NUMBER_OPS:
        return None
    owner = ast.unparse(func.value)
    return func.attr if owner == "F" or owner.endswith("functional") else None


def _passed(call: ast.Call, op: NumberOp) -> dict[str, ast.expr] | None:
    """What the call passes for each of the op's parameters by name (None: it passes one the helper does not take,
    or `*args`/`**kwargs`)."""
    if len(call.args) > len(op.parameters) or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    given = dict(zip(op.parameters, call.args, strict=False))
    for keyword in call.keywords:
        if keyword.arg is None or keyword.arg not in op.parameters or keyword.arg in given:
            return None
        given[keyword.arg] = keyword.value
    return None if set(given) & set(op.refused) else given


def number_uses(tree: ast.Module, variable: str) -> list[NumberUse]:
    """Each call, in a function of the file with a parameter `variable`, of an op that needs `variable` as a Python
    number (`F.huber_loss(pred, y, delta=delta)` in `def train_step(x, y, delta)`), that its helper can stand for."""
    found: list[NumberUse] = []
    for function in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)):
        arguments = function.args
        names = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
        if variable not in names:
            continue
        for call in (n for n in ast.walk(function) if isinstance(n, ast.Call)):
            op = _op_name(call)
            passed = _passed(call, NUMBER_OPS[op]) if op else None
            if op is None or passed is None:
                continue
            if any(ast.unparse(passed[n]) == variable for n in NUMBER_OPS[op].numbers if n in passed):
                use = NumberUse(op, ast.unparse(call.func), call.lineno)
                if use not in found:
                    found.append(use)
    return found


def _helper(name: str, op: str) -> str:
    """The op written with torch ops, as a module-level function of the op's signature (its defaults kept)."""
    number_op = NUMBER_OPS[op]
    defaults = _DEFAULTS | ({"margin": _MARGIN_DEFAULTS[op]} if op in _MARGIN_DEFAULTS else {})
    parameters = [p if p not in defaults else f"{p}={defaults[p]}" for p in number_op.parameters]
    why = f"# F.{op} with {', '.join(f'`{n}`' for n in number_op.numbers)} a tensor: graph data, not a constant"
    head = f"def {name}({', '.join(parameters)}):"
    if len(head) > 100:  # a long signature: a parameter a line, as a formatter wraps it
        head = f"def {name}(\n" + "".join(f"    {p},\n" for p in parameters) + "):"
    return f"{head}\n    {why}\n{number_op.body}"


def op_written_out(site: Site) -> tuple[Edit, ...] | str:
    """```
    def train_step(x, y, delta):                          def huber_loss(input, target, reduction="mean", delta=1.0):
        loss = F.huber_loss(p, y, delta=delta)                ...torch.where(error < delta, ...)
    ...                                             ->    def train_step(x, y, delta):
    train_step(x, y, delta_at(step))                          loss = huber_loss(p, y, delta=delta)
                                                          ...
                                                          train_step(x, y, torch.tensor(delta_at(step)))
    ```
    The op that needs the changing number as a Python number called as a helper written with torch ops (defined
    before the function or class that calls it), and the value passed as a tensor at the line that calls the
    compiled function."""
    variable = (site.facts.variable or "").strip()
    tree = site.tree
    if tree is None or not variable.isidentifier():
        return "the changing value is no parameter of a function"
    uses = number_uses(tree, variable)
    if not uses:
        return f"no op of this file that needs `{variable}` as a Python number is passed it"
    edits: list[Edit] = []
    helpers: dict[str, str] = {}
    for use in uses:
        if use.op not in helpers:
            helpers[use.op] = free_name_in(tree, use.op)
            top = top_statement(tree, use.line)
            if top is None:
                return f"line {use.line} is in no module-level statement"
            edits.append(InsertBefore(first_line(top), _helper(helpers[use.op], use.op)))
        edits.append(ReplaceExpression(use.line, use.callee, helpers[use.op]))
    passed = passed_value(site.facts) or variable
    statement = simple_statement(site)
    if not isinstance(statement, str) and passes(statement.node, site.source, passed):
        edits.append(WrapArgument(site.line, passed, "torch.tensor({value})"))
    return tuple(edits)


def needs_number(tree: ast.Module | None, variable: str) -> str | None:
    """The op (`F.huber_loss`) that needs `variable` as a Python number, where one of the file's functions passes
    its parameter `variable` to one: a tensor passed for it breaks the graph there."""
    uses = number_uses(tree, variable) if tree is not None and variable.isidentifier() else []
    return uses[0].callee if uses else None
