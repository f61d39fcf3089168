"""NumPy and math calls inside compiled code: the torch op of the same meaning, from a table."""

from __future__ import annotations

import ast
import re

from torchcompile_doctor.model.edits import Edit, InsertBefore, ReplaceExpression, ReplaceStatement
from torchcompile_doctor.transforms.call_source import free_name, imports_torch
from torchcompile_doctor.transforms.line_code import RENAMED_IN_TORCH, SAME_IN_TORCH
from torchcompile_doctor.transforms.site import Site
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
    later = _tensor_again(site, function, node)
    if isinstance(later, str):
        return later
    wrapper = _wrapping_call(node, call)
    old = site.code(wrapper) if wrapper is not None else site.code(call)
    top = next(s for s in tree.body if s.lineno <= site.line <= (s.end_lineno or s.lineno))
    first = min([top.lineno, *(d.lineno for d in getattr(top, "decorator_list", []))])
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


def _tensor_again(
    site: Site, function: ast.FunctionDef | ast.AsyncFunctionDef, node: ast.stmt
) -> tuple[ReplaceExpression, ...] | str:
    """For `NAME = np.interp(...)`: each later `torch.from_numpy(NAME)` of the function made `NAME` (the result is
    a tensor already); why not where NAME is read otherwise (as a numpy array)."""
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
    edits, wrapped = [], set()
    for statement in sorted(after, key=lambda s: s.lineno):
        for call in ast.walk(statement):
            if isinstance(call, ast.Call) and ast.unparse(call.func) in _BACK_TO_TENSOR and len(call.args) == 1:
                argument = call.args[0]
                if isinstance(argument, ast.Name) and argument.id == name and id(argument) not in wrapped:
                    wrapped.add(id(argument))
                    edits.append(ReplaceExpression(statement.lineno, site.code(call), name))
    reads = [n for n in ast.walk(function) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
    if any(id(n) not in wrapped and n.lineno > node.lineno for n in reads):
        return f"`{name}` is read as a numpy array after line {node.lineno}"
    if len({e.line for e in edits}) != len(edits):
        return f"`{name}` is made a tensor twice in one statement"
    return tuple(edits)
