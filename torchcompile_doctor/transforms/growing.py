"""A tensor a module grows each step inside its compiled `forward` (a key/value cache or a history kept as an
attribute, a registered buffer or an entry of a dict attribute, re-made by `torch.cat` one step longer): its length
is a new size on every call. The user-side fix torch's issues give without rewriting the module: mark the growing
dimension at the line that calls the compiled module, on the expression that reaches that tensor from the caller
(the recompile's guard source `self.caches['k']` read on the instance the caller compiled: `layer.caches['k']`), on
every tensor grown alike (they are tied: one marked alone leaves the other's recompiles), unbacked where the first
compile saw a size of 0 or 1 (torch specializes those whatever `mark_dynamic` says). A registered buffer's shape is
static whatever its marking (`torch._dynamo.config.force_parameter_static_shapes`, True by default, covers a
module's parameters and buffers): that setting is turned off with it. Read from the file's syntax tree; nothing here
runs the code."""

from __future__ import annotations

import ast
import re

from torchcompile_doctor.model.edits import AfterTorchImport, Edit, InsertBefore
from torchcompile_doctor.transforms.call_source import free_name
from torchcompile_doctor.transforms.line_code import MARK_DYNAMIC, MARK_UNBACKED, SPECIALIZED_SIZES
from torchcompile_doctor.transforms.module_callers import calls_by_name, compiled_module_callers
from torchcompile_doctor.transforms.site import Site, innermost_statement

# torch 2.13-2.15: True keeps every nn.Module parameter's and buffer's shape static (torch/_dynamo/utils.py
# `tensor_always_has_static_shape`), so a growing buffer recompiles on each new length until the recompile limit
BUFFER_SHAPES_DYNAMIC = "torch._dynamo.config.force_parameter_static_shapes = False"
EVERY_ITEM = "[*]"  # a list's items grown alike in a loop (`self.caches[i]`): each guarded as `self.caches[0]`, ...
_ITEM = re.compile(r"\[\d+\]$")
Grown = dict[ast.ClassDef, list[tuple[str, int]]]  # each class of the file: what it grows (`_grown`)


def _grown(cls: ast.ClassDef) -> list[tuple[str, int]]:
    """(target, dim) of each `self.A = torch.cat([self.A, ...], dim=D)` in the class's methods, the target as the
    user's code reads it (`self.k_cache`, `self.caches['k']`, `self.memory[0]`)."""
    found: list[tuple[str, int]] = []
    for node in ast.walk(cls):
        grown = _grown_by_cat(node) if isinstance(node, ast.Assign) else None
        if grown is not None and grown not in found:
            found.append(grown)
    return found


def _grown_by_cat(node: ast.Assign) -> tuple[str, int] | None:
    """(target, dim) where the assignment is `self.A = torch.cat([self.A, ...], dim=D)` (D a number)."""
    if len(node.targets) != 1 or not isinstance(node.value, ast.Call):
        return None
    target, call = ast.unparse(node.targets[0]), node.value
    if not target.startswith("self.") or ast.unparse(call.func) != "torch.cat" or not call.args:
        return None
    parts = call.args[0]
    if not isinstance(parts, ast.List | ast.Tuple) or not parts.elts or ast.unparse(parts.elts[0]) != target:
        return None
    if isinstance(node.targets[0], ast.Subscript) and isinstance(node.targets[0].slice, ast.Name):
        target = f"{ast.unparse(node.targets[0].value)}{EVERY_ITEM}"  # `self.caches[i]` in a loop: every item
    given = [k.value for k in call.keywords if k.arg == "dim"] or call.args[1:2]
    dim = given[0].value if given and isinstance(given[0], ast.Constant) else 0 if not given else None
    return (target, dim) if isinstance(dim, int) else None


def _growing_class(site: Site, variable: str, classes: Grown) -> ast.ClassDef | None:
    """The class whose methods grow `variable`: the one holding the site, else the one class of the file that does
    (the site is the line calling the compiled module)."""
    held = site.enclosing_class()
    if held is not None:
        return held
    growing = [c for c, grown in classes.items() if variable in {t for t, _ in grown}]
    return growing[0] if len(growing) == 1 else None


def _compiled_calls(tree: ast.Module, cls: ast.ClassDef) -> list[tuple[int, str]]:
    """(line, instance) of each call of a compiled module of `cls` made in this file."""
    callers = compiled_module_callers(tree, cls.name)
    return [
        (call.lineno, callers[call.func.id]) for call in calls_by_name(tree, callers) if isinstance(call.func, ast.Name)
    ]


def _registered_buffers(cls: ast.ClassDef) -> set[str]:
    """The names the class registers as buffers (`self.register_buffer("context", ...)`)."""
    return {
        node.args[0].value
        for node in ast.walk(cls)
        if isinstance(node, ast.Call)
        and ast.unparse(node.func) == "self.register_buffer"
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    }


def mark_growing_cache(site: Site) -> tuple[Edit, ...] | str:
    """```
    step = torch.compile(attn)                  step = torch.compile(attn)
    for _ in range(12):                         for _ in range(12):
        tok = step(tok)                   ->        torch._dynamo.decorators.mark_unbacked(attn.k_cache, 0)
                                                    torch._dynamo.decorators.mark_unbacked(attn.v_cache, 0)
                                                    tok = step(tok)
    ```
    Before each line of the file that calls the compiled module, every tensor its class grows by `torch.cat`
    marked on the dimension it grows along, on the instance the caller compiled; where one is a registered
    buffer, buffers' shapes made dynamic where the program starts."""
    tree = site.tree
    classes: Grown = {c: _grown(c) for c in ast.walk(tree) if isinstance(c, ast.ClassDef)} if tree else {}
    variable = _grown_name(site, classes)
    cls = _growing_class(site, variable, classes) if tree is not None else None
    if tree is None or cls is None:
        return f"no class of this file grows `{variable}` with `torch.cat`"
    grown = classes[cls] if cls in classes else _grown(cls)
    if variable not in {t for t, _ in grown}:
        return f"`{cls.name}` does not grow `{variable}` with `torch.cat`"
    calls = _compiled_calls(tree, cls)
    if not calls:
        return f"no line of this file calls a `torch.compile` of a `{cls.name}` made here"
    marking = MARK_UNBACKED if str(site.facts.first_value) in SPECIALIZED_SIZES else MARK_DYNAMIC
    loop_name = free_name(site.source, "grown")
    edits: list[Edit] = []
    for line, instance in calls:
        statement = innermost_statement(tree, line)
        if statement is None or not isinstance(statement, ast.Assign | ast.Expr | ast.AugAssign | ast.Return):
            return f"the call at line {line} is not a simple statement"
        marks = "\n".join(_marks(marking, instance, target, dim, loop_name) for target, dim in grown)
        edits.append(InsertBefore(statement.lineno, marks))
    if any(target.removeprefix("self.").split("[")[0] in _registered_buffers(cls) for target, _ in grown):
        edits.append(AfterTorchImport(BUFFER_SHAPES_DYNAMIC))
    return tuple(dict.fromkeys(edits))


def _grown_name(site: Site, classes: Grown) -> str:
    """The recompile's tensor as the class's code names it: `self.k_cache`; an item of a list grown in a loop
    (`self.caches[0]`, grown as `self.caches[i]`) as every item of it (`self.caches[*]`), unless a class of the
    file grows `self.caches[0]` by that name."""
    variable = site.facts.variable or ""
    if not variable.startswith("self."):
        variable = f"self.{variable}"  # the detector's older facts name an attribute without `self.`
    every_target = {target for grown in classes.values() for target, _ in grown}
    return _ITEM.sub(EVERY_ITEM, variable) if variable not in every_target else variable


def _marks(marking: str, instance: str, target: str, dim: int, loop_name: str) -> str:
    """The marking of one grown tensor as the caller reaches it: `mark(model.cache, 0)`, or, for the items of a list
    grown in a loop, a loop marking each (`for grown in model.caches: mark(grown, 0)`)."""
    reached = f"{instance}{target.removeprefix('self')}"
    if reached.endswith(EVERY_ITEM):
        return f"for {loop_name} in {reached.removesuffix(EVERY_ITEM)}:\n    {marking}({loop_name}, {dim})"
    return f"{marking}({reached}, {dim})"
