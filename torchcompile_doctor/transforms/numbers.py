"""Python numbers and tensor properties that change between calls of compiled code (a step, a scale, an lr, a
dtype, a length): passed as a tensor, cast to the dtype compiled first, marked dynamic, kept in a buffer."""

from __future__ import annotations

import ast

from torchcompile_doctor.events.guard_failures import is_carried_value
from torchcompile_doctor.model.edits import Edit, ReplaceStatement, WrapArgument
from torchcompile_doctor.transforms.line_code import (
    MARK_DYNAMIC,
    MARK_UNBACKED,
    SPECIALIZED_SIZES,
    code_only,
    marked_name,
    passed_value,
    replace_argument,
)
from torchcompile_doctor.transforms.number_ops import needs_number
from torchcompile_doctor.transforms.site import Site, SiteFacts
from torchcompile_doctor.transforms.statements import passes, simple_statement


def _passes(site: Site, argument: str) -> tuple[Edit, ...] | str | None:
    """None when the statement at the site passes `argument` (by keyword, or as an argument's code); else why not."""
    statement = simple_statement(site)
    if isinstance(statement, str):
        return statement
    return (
        None
        if passes(statement.node, site.source, argument)
        else f"the call at line {site.line} does not pass `{argument}`"
    )


def tensor_argument(site: Site) -> tuple[Edit, ...] | str:
    """`f(x, step)` -> `f(x, torch.tensor(step))`, `f(x, scale=s)` -> `f(x, scale=torch.tensor(s))`: a tensor's
    value is graph data, a Python number's is a guarded constant."""
    var = passed_value(site.facts)
    if not var or var.startswith("self.") or is_carried_value(var):  # an attribute, or a value torch carried
        return "the changing value is no argument of the user's call"
    consumer = needs_number(site.tree, site.facts.variable or "")
    if consumer is not None:  # it reads the tensor with `.item()`: a graph break for each recompile
        return f"`{consumer}` needs `{site.facts.variable}` as a Python number: a tensor there breaks the graph"
    why_not = _passes(site, var)
    return why_not if why_not is not None else (WrapArgument(site.line, var, "torch.tensor({value})"),)


def cast_at_call_site(site: Site) -> tuple[Edit, ...] | str:
    """`f(x)` -> `f(x.to(torch.float32))` at the call that passes the dtype the first compile did not see."""
    var = passed_value(site.facts)
    if not var:
        return "the argument whose dtype changed is not known"
    why_not = _passes(site, var)
    dtype = site.facts.first_value or "float32"
    return why_not if why_not is not None else (WrapArgument(site.line, var, "{value}.to(torch." + dtype + ")"),)


def tensor_hyperparameter(site: Site) -> tuple[Edit, ...] | str:
    """`torch.optim.Adam(params, lr=lr)` -> `torch.optim.Adam(params, lr=torch.tensor(lr))`: the optimizer's
    hyperparameter that recompiled, made a tensor where the user creates the optimizer."""
    wanted = site.facts.hyperparameter or "lr"
    statement = simple_statement(site)
    if isinstance(statement, str):
        return statement
    for node in ast.walk(statement.node):
        if isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg == wanted:
                    if ast.get_source_segment(site.source, keyword.value, padded=False).startswith("torch.tensor("):  # type: ignore[union-attr]
                        return f"`{wanted}` is a tensor already"
                    return (WrapArgument(site.line, wanted, "torch.tensor({value})"),)
    return f"the call at line {site.line} does not pass `{wanted}=`"


def mark_dynamic(site: Site) -> tuple[Edit, ...] | str:
    """`torch._dynamo.mark_dynamic(k, 0)` before the call that passes `k`; where the call passes a value it
    makes (`torch.stack(values)`), that value bound to a name first, as `mark_dynamic` needs the tensor itself.
    The inputs whose length torch ties to it (`facts.tied`) are marked with it: one marked alone raises
    ConstraintViolationError."""
    facts = site.facts
    var, dim = passed_value(facts), facts.dim if facts.dim is not None else 0
    if not var or facts.tied_hidden:
        return "an input tied to it is not passed at this line" if var else "the changing input is not known"
    statement = simple_statement(site)
    if isinstance(statement, str):
        return statement
    call = code_only(statement.code)
    marks = [(var, marked_name(var, facts.variable), dim), *(facts.tied or ())]
    binds: list[str] = []
    lines: list[str] = []
    for passed, name, mark_dim in marks:
        if replace_argument(call, passed, passed) is None:
            return f"the call at line {site.line} does not pass `{passed}`"
        if name != passed:
            if not name.isidentifier():
                return f"`{passed}` cannot be bound to a name"
            binds.append(f"{name} = {passed}")
            call = replace_argument(call, passed, name) or call
        lines.append(f"{_marking(facts)}({name}, {mark_dim})")
    return (ReplaceStatement(statement.node.lineno, "\n".join([*binds, *lines, call])),)


def _marking(facts: SiteFacts) -> str:
    """torch's marking to write: the detector's, else unbacked where the first compile saw a size of 0 or 1 (a
    buffer that grows from empty or from one row), else `mark_dynamic`."""
    if facts.mark_call:
        return facts.mark_call
    return MARK_UNBACKED if str(facts.first_value) in SPECIALIZED_SIZES else MARK_DYNAMIC


def module_counter_buffer(site: Site) -> tuple[Edit, ...] | str:
    """`self.step += 1` in a compiled forward -> `self.step.add_(1)`, with `self.step = 0` in `__init__` made
    `self.register_buffer("step", torch.tensor(0))`: a buffer is graph data, an int attribute a guarded
    constant."""
    attribute = site.facts.attribute
    statement = simple_statement(site)
    if not attribute or isinstance(statement, str):
        return statement if isinstance(statement, str) else "the changing attribute is not known"
    node = statement.node
    target = ast.unparse(node.target) if isinstance(node, ast.AugAssign) else ""
    if target != f"self.{attribute}" or not isinstance(node, ast.AugAssign) or not isinstance(node.op, ast.Add):
        return f"line {site.line} is not `self.{attribute} += ...`"
    start = _initial_assignment(site, attribute)
    if start is None:
        return f"`__init__` does not set `self.{attribute}` to a number"
    value = ast.get_source_segment(site.source, node.value) or "1"
    return (
        ReplaceStatement(start[0], f'self.register_buffer("{attribute}", torch.tensor({start[1]}))'),
        ReplaceStatement(node.lineno, f"self.{attribute}.add_({value})"),
    )


def _initial_assignment(site: Site, attribute: str) -> tuple[int, str] | None:
    """(the line, the number) of `self.ATTRIBUTE = <number>` in the `__init__` of the class holding the site."""
    owner = site.enclosing_class()
    init = (
        next((f for f in owner.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
        if owner
        else None
    )
    for node in ast.walk(init) if init is not None else ():
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and ast.unparse(node.targets[0]) == f"self.{attribute}"
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, (int, float))
            and not isinstance(node.value.value, bool)
        ):
            return node.lineno, repr(node.value.value)
    return None
