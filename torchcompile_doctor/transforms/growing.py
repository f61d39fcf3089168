"""A tensor a module grows each step inside its compiled `forward` (a key/value cache or a history kept as an
attribute and re-made by `torch.cat` one step longer): its length is a new size on every call. The user-side fix
torch's issues give without rewriting the module: mark the growing dimension at the line that calls the compiled
module, on every attribute grown alike (they are tied: one marked alone leaves the other's recompiles), unbacked
where the first compile saw a size of 0 or 1 (torch specializes those whatever `mark_dynamic` says). Read from
the file's syntax tree; nothing here runs the code."""

from __future__ import annotations

import ast

from torchcompile_doctor.model.edits import Edit, InsertBefore
from torchcompile_doctor.transforms.line_code import MARK_DYNAMIC, MARK_UNBACKED, SPECIALIZED_SIZES
from torchcompile_doctor.transforms.loops import _instances_of
from torchcompile_doctor.transforms.site import Site, innermost_statement


def _grown(cls: ast.ClassDef) -> list[tuple[str, int]]:
    """(attribute, dim) of each `self.A = torch.cat([self.A, ...], dim=D)` in the class's methods."""
    found: list[tuple[str, int]] = []
    for node in ast.walk(cls):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1 or not isinstance(node.value, ast.Call):
            continue
        target, call = ast.unparse(node.targets[0]), node.value
        if not target.startswith("self.") or ast.unparse(call.func) != "torch.cat" or not call.args:
            continue
        parts = call.args[0]
        if not isinstance(parts, ast.List | ast.Tuple) or not parts.elts or ast.unparse(parts.elts[0]) != target:
            continue
        given = [k.value for k in call.keywords if k.arg == "dim"] or call.args[1:2]
        dim = given[0].value if given and isinstance(given[0], ast.Constant) else 0 if not given else None
        if isinstance(dim, int) and (target.removeprefix("self."), dim) not in found:
            found.append((target.removeprefix("self."), dim))
    return found


def _compiled_callers(tree: ast.Module, instances: set[str]) -> dict[str, str]:
    """By the name the compiled module is called by, the instance it compiles (`step = torch.compile(attn)`)."""
    callers = {}
    for statement in (s for s in tree.body if isinstance(s, ast.Assign) and len(s.targets) == 1):
        call = statement.value
        if isinstance(call, ast.Call) and ast.unparse(call.func) == "torch.compile" and call.args:
            instance, target = ast.unparse(call.args[0]), statement.targets[0]
            if instance in instances and isinstance(target, ast.Name):
                callers[target.id] = instance
    return callers


def mark_growing_cache(site: Site) -> tuple[Edit, ...] | str:
    """```
    step = torch.compile(attn)                  step = torch.compile(attn)
    for _ in range(12):                         for _ in range(12):
        tok = step(tok)                   ->        torch._dynamo.decorators.mark_unbacked(attn.k_cache, 0)
                                                    torch._dynamo.decorators.mark_unbacked(attn.v_cache, 0)
                                                    tok = step(tok)
    ```
    Before each line of the file that calls the compiled module, every attribute its class grows by `torch.cat`
    marked on the dimension it grows along."""
    tree, cls = site.tree, site.enclosing_class()
    attribute = (site.facts.variable or "").removeprefix("self.")
    if tree is None or cls is None:
        return "the line is not in a module's method"
    grown = _grown(cls)
    if attribute not in {a for a, _ in grown}:
        return f"`{cls.name}` does not grow `self.{attribute}` with `torch.cat`"
    callers = _compiled_callers(tree, _instances_of(tree, cls))
    calls = [
        (n.lineno, callers[n.func.id])
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in callers
    ]
    if not calls:
        return f"no line of this file calls a `torch.compile` of a `{cls.name}` made here"
    marking = MARK_UNBACKED if str(site.facts.first_value) in SPECIALIZED_SIZES else MARK_DYNAMIC
    edits: list[Edit] = []
    for line, instance in calls:
        statement = innermost_statement(tree, line)
        if statement is None or not isinstance(statement, ast.Assign | ast.Expr | ast.AugAssign | ast.Return):
            return f"the call at line {line} is not a simple statement"
        marks = "\n".join(f"{marking}({instance}.{name}, {dim})" for name, dim in grown)
        edits.append(InsertBefore(statement.lineno, marks))
    return tuple(dict.fromkeys(edits))
