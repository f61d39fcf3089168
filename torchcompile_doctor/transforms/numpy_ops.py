"""NumPy and math calls inside compiled code: the torch op of the same meaning, from a table."""

from __future__ import annotations

import ast
import re

from torchcompile_doctor.model.edits import Edit, InsertBefore, ReplaceExpression, ReplaceStatement
from torchcompile_doctor.transforms.call_source import free_name, imports_torch
from torchcompile_doctor.transforms.line_code import RENAMED_IN_TORCH, SAME_IN_TORCH
from torchcompile_doctor.transforms.site import Site, first_line, top_statement
from torchcompile_doctor.transforms.statements import simple_statement


def numpy_to_torch(site: Site) -> tuple[Edit, ...] | str:
    """`y = np.clip(x.numpy(), 0, 1)` -> `y = torch.clamp(x, 0, 1)`; a numpy function with no twin in the
    table leaves the line alone."""
    statement = simple_statement(site)
    if isinstance(statement, str):
        return statement
    after = re.sub(r"\.numpy\(\)", "", statement.code)
    # np.digitize(x, bins) == torch.bucketize(x, bins, right=True)
    after = re.sub(
        r"\bnp\.digitize\((?P<x>[^,()]+),\s*(?P<bins>[^,()]+)\)",
        r"torch.bucketize(\g<x>, torch.as_tensor(\g<bins>), right=True)",
        after,
    )
    unknown: list[str] = []

    def swap(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in SAME_IN_TORCH:
            return f"torch.{name}("
        if name in RENAMED_IN_TORCH:
            return f"torch.{RENAMED_IN_TORCH[name]}("
        unknown.append(name)
        return match.group(0)

    after = re.sub(r"\b(?:np|numpy)\.(\w+)\(", swap, after)
    if unknown:
        return f"`np.{unknown[0]}` has no torch twin in the table"
    if after == statement.code:
        return f"line {site.line} calls no numpy function"
    return (ReplaceStatement(statement.node.lineno, after),)


# math functions on a tensor (they read it as a Python float: a break) and the torch op of the same meaning
_MATH_IN_TORCH = {
    "exp": "exp",
    "log": "log",
    "log2": "log2",
    "log10": "log10",
    "sqrt": "sqrt",
    "sin": "sin",
    "cos": "cos",
    "tan": "tan",
    "tanh": "tanh",
    "fabs": "abs",
    "floor": "floor",
    "ceil": "ceil",
    "erf": "erf",
    "atan2": "atan2",
    "pow": "pow",
}


def math_to_torch(site: Site) -> tuple[Edit, ...] | str:
    """`y / math.exp(self.log_t)` -> `y / torch.exp(self.log_t)`: a math call on a tensor converts it to a
    Python float (a break); its torch twin keeps it in the graph."""
    node = site.statement()
    if node is None:
        return f"no statement at line {site.line}"
    header = [node.test] if hasattr(node, "test") else [node]
    calls = [
        c
        for part in header
        for c in ast.walk(part)
        if isinstance(c, ast.Call)
        and isinstance(c.func, ast.Attribute)
        and isinstance(c.func.value, ast.Name)
        and c.func.value.id == "math"
        and c.func.attr in _MATH_IN_TORCH
        and c.lineno <= site.line <= (c.end_lineno or c.lineno)
    ]
    if not calls:
        return f"line {site.line} calls no math function with a torch twin"
    edits: list[Edit] = []
    for call in calls:
        old = ast.get_source_segment(site.source, call) or ""
        func = call.func if isinstance(call.func, ast.Attribute) else None
        new = f"torch.{_MATH_IN_TORCH[func.attr if func else '']}" + old[len(ast.unparse(call.func)) :]
        edits.append(ReplaceExpression(node.lineno, old, new))
    return tuple(edits[:1])  # one call at a time: two edits of one statement do not combine


# `np.interp(x, xp, fp)` in torch ops: Dynamo's numpy support has no `interp` (a break); the helper is put at
# module level once and the call made on the tensor the numpy array was read from
_INTERP_HELPER = '''\
def {name}(x, xp, fp):
    """`np.interp(x, xp, fp)` in torch ops (xp increasing; outside it, fp's end values)."""
    xp = torch.as_tensor(xp, dtype=x.dtype, device=x.device)
    fp = torch.as_tensor(fp, dtype=x.dtype, device=x.device)
    right = torch.searchsorted(xp, x.contiguous()).clamp(1, len(xp) - 1)
    x0, x1, y0, y1 = xp[right - 1], xp[right], fp[right - 1], fp[right]
    inside = y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return torch.where(x <= xp[0], fp[0], torch.where(x >= xp[-1], fp[-1], inside))
'''
# the wrappers that turned the numpy result back into a tensor: the torch result needs none
_BACK_TO_TENSOR = ("torch.from_numpy", "torch.as_tensor", "torch.tensor")


def interp_to_torch(site: Site) -> tuple[Edit, ...] | str:
    """`c = np.interp(raw.detach().numpy(), xp, fp)` and `torch.from_numpy(c)` after it -> `c = _torch_interp(
    raw.detach(), xp, fp)` and `c`, with `_torch_interp` (searchsorted and a linear blend) put at module level.
    Only where the interpolated values are a tensor read with `.numpy()` and the result is used as a tensor
    again (through `torch.from_numpy`) or not at all."""
    statement = simple_statement(site)
    tree, function = site.tree, site.function()
    if isinstance(statement, str) or tree is None or function is None:
        return statement if isinstance(statement, str) else "the line is in no function"
    if not imports_torch(site.source):
        return "the file does not `import torch`"
    call = next((c for c in ast.walk(statement.node) if isinstance(c, ast.Call) and _is_interp(c)), None)
    if call is None:
        return f"line {site.line} calls no `np.interp`"
    if len(call.args) != 3 or call.keywords:
        return "`np.interp` is called with `left=`, `right=` or `period=`: no torch twin written for them"
    values = site.code(call.args[0])
    if not values.endswith(".numpy()"):
        return "the interpolated values are not a tensor read with `.numpy()`"
    name = free_name(site.source, "_torch_interp")
    torch_call = f"{name}({values.removesuffix('.numpy()')}, {site.code(call.args[1])}, {site.code(call.args[2])})"
    node = statement.node
    later = _unwrapped(site, function, node, _BACK_TO_TENSOR, only_wrapped=True)
    if isinstance(later, str):
        return later
    wrapper = _wrapping_call(node, call)
    old = site.code(wrapper) if wrapper is not None else site.code(call)
    top = top_statement(tree, site.line)
    if top is None:
        return f"line {site.line} is in no module-level statement"
    first = first_line(top)
    return (
        InsertBefore(first, _INTERP_HELPER.format(name=name)),
        ReplaceExpression(node.lineno, old, torch_call),
        *later,
    )


def _is_interp(call: ast.Call) -> bool:
    return ast.unparse(call.func) in ("np.interp", "numpy.interp")


def _wrapping_call(node: ast.stmt, call: ast.Call) -> ast.Call | None:
    """The `torch.from_numpy(...)` around the call in the same statement, if any."""
    for outer in ast.walk(node):
        if isinstance(outer, ast.Call) and ast.unparse(outer.func) in _BACK_TO_TENSOR and call in outer.args[:1]:
            return outer
    return None


def _wrapped_reads(
    site: Site, statements: list[ast.stmt], wrappers: tuple[str, ...], name: str
) -> tuple[list[ReplaceExpression], set[int]]:
    """Each `WRAPPER(NAME)` of the statements made `NAME`, and the ids of the NAME nodes so unwrapped."""
    edits, wrapped = [], set()
    for statement in sorted(statements, key=lambda s: s.lineno):
        for call in ast.walk(statement):
            if isinstance(call, ast.Call) and ast.unparse(call.func) in wrappers and len(call.args) == 1:
                argument = call.args[0]
                if isinstance(argument, ast.Name) and argument.id == name and id(argument) not in wrapped:
                    wrapped.add(id(argument))
                    edits.append(ReplaceExpression(statement.lineno, site.code(call), name))
    return edits, wrapped


def _unwrapped(
    site: Site,
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    node: ast.stmt,
    wrappers: tuple[str, ...],
    only_wrapped: bool = False,
) -> tuple[ReplaceExpression, ...] | str:
    """For `NAME = <numpy call>` made a torch call: each later `WRAPPER(NAME)` of the function (`torch.from_numpy`,
    `float`) made `NAME` (a tensor needs none); why not where `only_wrapped` and NAME is read otherwise (as a
    numpy array)."""
    if not isinstance(node, ast.Assign):
        return ()
    if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
        return f"line {node.lineno} assigns the result to more than one name"
    name = node.targets[0].id
    after = [  # simple statements only: a compound one's own line is its header
        s
        for s in ast.walk(function)
        if isinstance(s, ast.stmt) and not hasattr(s, "body") and s.lineno > (node.end_lineno or node.lineno)
    ]
    edits, wrapped = _wrapped_reads(site, after, wrappers, name)
    reads = [n for n in ast.walk(function) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
    if only_wrapped and any(id(n) not in wrapped and n.lineno > node.lineno for n in reads):
        return f"`{name}` is read as a numpy array after line {node.lineno}"
    if len({e.line for e in edits}) != len(edits):
        return f"`{name}` is unwrapped twice in one statement"
    return tuple(edits)


# numpy's global random draws and their torch twins, the same shape and dtype (numpy draws float64, and int64
# integers): (numpy's parameters in order, their defaults, the torch code) - `{size}` a shape tuple
_RANDOM_IN_TORCH: dict[str, tuple[tuple[str, ...], tuple[str | None, ...], str]] = {
    "uniform": (
        ("low", "high", "size"),
        ("0.0", "1.0", None),
        "torch.empty({size}, dtype=torch.float64).uniform_({low}, {high})",
    ),
    "normal": (
        ("loc", "scale", "size"),
        ("0.0", "1.0", None),
        "torch.empty({size}, dtype=torch.float64).normal_({loc}, {scale})",
    ),
    "random": (("size",), (None,), "torch.rand({size}, dtype=torch.float64)"),
    "random_sample": (("size",), (None,), "torch.rand({size}, dtype=torch.float64)"),
    "randint": (("low", "high", "size"), (None, None, None), "torch.randint({low}, {high}, {size})"),
}
_RANDOM_SHAPED = {"rand": "torch.rand", "randn": "torch.randn"}  # np.random.rand(d0, d1, ...): the dims as arguments
# reads that made numpy's Python scalar a number: a tensor's needs none (`float(t)` would read it back: a break)
_TO_NUMBER = ("float", "int")


def numpy_random_to_torch(site: Site) -> tuple[Edit, ...] | str:
    """`scale = np.random.uniform(0.8, 1.2)` -> `scale = torch.empty((), dtype=torch.float64).uniform_(0.8, 1.2)`
    (and `float(scale)` after it -> `scale`): torch's generator draws instead of numpy's global one, so the values
    drawn differ (a program that prints what depends on them prints other numbers: the trial says so)."""
    drawn = _numpy_draw(site)
    if isinstance(drawn, str):
        return drawn
    node, call, numbers = drawn
    func = call.func.attr if isinstance(call.func, ast.Attribute) else ""
    if func in _RANDOM_SHAPED:
        if call.keywords:
            return f"`np.random.{func}` is called with keywords"
        dims = ", ".join(site.code(a) for a in call.args) or "()"
        twin = f"{_RANDOM_SHAPED[func]}({dims}, dtype=torch.float64)"
    else:
        bound = _bound_arguments(site, call, *_RANDOM_IN_TORCH[func][:2])
        if isinstance(bound, str):
            return bound
        if func == "randint" and bound["high"] is None:
            bound["low"], bound["high"] = "0", bound["low"]
        size = bound.pop("size") or "()"
        twin = _RANDOM_IN_TORCH[func][2].format(size=size if size.startswith("(") else f"({size},)", **bound)
    return (ReplaceExpression(node.lineno, site.code(call), twin), *numbers)


def numpy_draw_kept_eager(site: Site) -> tuple[Edit, ...] | str:
    """`scale = np.random.uniform(0.8, 1.2)` -> `scale = _scale_drawn()`, the draw put in a module-level helper
    under `@torch.compiler.disable` that returns it as a tensor (and `float(scale)` after it -> `scale`): numpy's
    own stream draws the same values, the graph still breaks at the helper, but the value no longer reaches the
    compiled code as a Python number (a recompile for each new value)."""
    drawn = _numpy_draw(site)
    if isinstance(drawn, str):
        return drawn
    node, call, numbers = drawn
    tree = site.tree
    if tree is None or not isinstance(node, ast.Assign) or not isinstance(node.targets[0], ast.Name):
        return f"line {site.line} assigns the draw to no one name"
    name = free_name(site.source, f"_{node.targets[0].id}_drawn")
    helper = f"@torch.compiler.disable\ndef {name}():\n    return torch.tensor({site.code(call)})\n"
    top = top_statement(tree, site.line)
    if top is None:
        return f"line {site.line} is in no module-level statement"
    first = first_line(top)
    return (InsertBefore(first, helper), ReplaceExpression(node.lineno, site.code(call), f"{name}()"), *numbers)


def _numpy_draw(site: Site) -> tuple[ast.stmt, ast.Call, tuple[ReplaceExpression, ...]] | str:
    """The statement, the `np.random.*` call of the table in it (reading nothing of the function's), and the
    edits that drop `float(NAME)` after it where the statement assigns the draw to NAME."""
    statement = simple_statement(site)
    function = site.function()
    if isinstance(statement, str) or function is None:
        return statement if isinstance(statement, str) else "the line is in no function"
    if not imports_torch(site.source):
        return "the file does not `import torch`"
    calls = [c for c in ast.walk(statement.node) if isinstance(c, ast.Call) and _random_draw(c) is not None]
    if not calls:
        return f"line {site.line} makes no numpy draw of the table (`np.random.uniform`, `normal`, `rand`, ...)"
    call = calls[0]
    own = {n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    own |= {a.arg for a in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)}
    if any(isinstance(n, ast.Name) and n.id in own for a in (*call.args, *call.keywords) for n in ast.walk(a)):
        return "the draw reads a value of the function's"
    numbers = _unwrapped(site, function, statement.node, _TO_NUMBER)
    return (statement.node, call, numbers) if not isinstance(numbers, str) else numbers


def _random_draw(call: ast.Call) -> str | None:
    name = ast.unparse(call.func)
    for prefix in ("np.random.", "numpy.random."):
        short = name.removeprefix(prefix)
        if short != name and (short in _RANDOM_IN_TORCH or short in _RANDOM_SHAPED):
            return short
    return None


def _bound_arguments(
    site: Site, call: ast.Call, names: tuple[str, ...], defaults: tuple[str | None, ...]
) -> dict[str, str | None] | str:
    """numpy's parameters bound to the call's code (positional, then keyword), the defaults for the others."""
    if len(call.args) > len(names) or any(isinstance(a, ast.Starred) for a in call.args):
        return "the draw passes more than its table entry knows"
    bound: dict[str, str | None] = dict(zip(names, defaults, strict=True))
    bound.update({name: site.code(a) for name, a in zip(names, call.args, strict=False)})
    for keyword in call.keywords:
        if keyword.arg not in names:
            return f"the draw passes `{keyword.arg}=`, which its table entry does not know"
        bound[keyword.arg] = site.code(keyword.value)
    if any(value is None for name, value in bound.items() if name != "size" and name != "high"):
        return "the draw leaves out an argument numpy needs"
    return bound
