"""A loop whose bound is an int the caller changes, inside a compiled function: Dynamo unrolls `range(n)`, so
`n` must stay a constant of the graph (a tensor or `dynamic=True` cannot carry it) and each new bound compiles
again. The fix torch's issues give: compile the loop's body, not the loop, so one graph serves every bound. Read
from the file's syntax tree; nothing here runs the code."""

from __future__ import annotations

import ast

from torchcompile_doctor.model.edits import Edit, InsertBefore, ReplaceStatement
from torchcompile_doctor.transforms.call_source import free_name_in
from torchcompile_doctor.transforms.line_code import is_compile
from torchcompile_doctor.transforms.module_callers import instances_of
from torchcompile_doctor.transforms.site import Site

_EXITS = (ast.Return, ast.Break, ast.Continue, ast.Yield, ast.YieldFrom, ast.Await, ast.Global, ast.Nonlocal)


def _bounded_loop(function: ast.FunctionDef, bound: str) -> ast.For | None:
    """The function's own `for _ in range(bound)` (or `range(0, bound)`) at its top level, `bound` a parameter."""
    parameters = {a.arg for a in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)}
    if bound not in parameters:
        return None
    for statement in function.body:
        if isinstance(statement, ast.For) and not statement.orelse and isinstance(statement.iter, ast.Call):
            call = statement.iter
            if ast.unparse(call.func) == "range" and not call.keywords and ast.unparse(call.args[-1]) == bound:
                return statement
    return None


def _names(nodes: list[ast.stmt], context: type[ast.expr_context]) -> list[str]:
    found = [n.id for s in nodes for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, context)]
    return list(dict.fromkeys(found))


def _compiled_function(site: Site, bound: str) -> tuple[ast.FunctionDef, ast.For] | str:
    """The module-level function compiled by one `@torch.compile` decorator that the site's line calls (or holds)
    and whose loop `bound` bounds."""
    tree = site.tree
    if tree is None:
        return "the file does not parse"
    statement = site.statement()
    walked = ast.walk(statement) if statement is not None else ()
    called = {n.func.id for n in walked if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    held = site.function()
    for function in (f for f in tree.body if isinstance(f, ast.FunctionDef)):
        if function.name not in called and function is not held:
            continue
        if len(function.decorator_list) != 1 or not is_compile(function.decorator_list[0]):
            continue
        loop = _bounded_loop(function, bound)
        if loop is not None:
            return function, loop
    return f"no function compiled by `@torch.compile` loops over `range({bound})`"


def compile_loop_body(site: Site) -> tuple[Edit, ...] | str:
    """```
    @torch.compile(backend="eager")              @torch.compile(backend="eager")
    def integrate(x, dt, n):                     def _integrate_step(x, dt):
        for _ in range(n):                   ->      x = x + dt * velocity(x)
            x = x + dt * velocity(x)                 return x
        return x
                                                 def integrate(x, dt, n):
                                                     for _ in range(n):
                                                         x = _integrate_step(x, dt)
                                                     return x
    ```
    The loop's body made a compiled function of the values it reads, returning the values it assigns; the loop
    stays in Python. Only where the loop's variable is unused (an index passed in would be a new int per
    iteration), and the body neither returns, breaks nor yields."""
    bound = (site.facts.variable or "").split(".")[0]
    found = _compiled_function(site, bound) if bound.isidentifier() else "the changing int is not known"
    if isinstance(found, str):
        return found
    function, loop = found
    why_not = _why_not_extracted(loop)
    if why_not is not None:
        return why_not
    carried, assigned = _step_values(function, loop)
    if not assigned:
        return "the loop's body assigns nothing it could return"
    step, rewritten = _rewritten(site, function, loop, carried, assigned)
    return (ReplaceStatement(function.lineno, f"{step}\n\n\n{rewritten}"),)


def _loop_names(loop: ast.For) -> set[str]:
    return {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}


def _why_not_extracted(loop: ast.For) -> str | None:
    if set(_names(loop.body, ast.Load)) & _loop_names(loop):
        return "the loop's body reads its index: each iteration would pass another int"
    if any(isinstance(n, _EXITS) for s in loop.body for n in ast.walk(s)):
        return "the loop's body leaves it (`return`, `break`, `continue`, `yield`)"
    return None


def _step_values(function: ast.FunctionDef, loop: ast.For) -> tuple[list[str], list[str]]:
    """What the step function takes (the function's own values the body reads) and returns (what it assigns)."""
    assigned = [n for n in _names(loop.body, ast.Store) if n not in _loop_names(loop)]
    local = {a.arg for a in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)}
    local |= set(_names(function.body[: function.body.index(loop)], ast.Store))
    read = [n for n in _names(loop.body, ast.Load) if n in local or n in assigned]
    return [n for n in read if n not in assigned or n in local], assigned


def _rewritten(
    site: Site,
    function: ast.FunctionDef,
    loop: ast.For,
    carried: list[str],
    assigned: list[str],
    method_options: str | None = None,
) -> tuple[str, str]:
    """The step function (the loop's body under the function's decorator), then the function without it; for a
    method (`method_options`: the options of the module's compile), a method the loop calls on `self`."""
    lines = site.source.splitlines()
    margin = function.col_offset  # a method's lines are written dedented: the edit indents them as the class
    if method_options is None:
        decorator = lines[function.decorator_list[0].lineno - 1].strip()
    else:
        decorator = f"@torch.compile({method_options})" if method_options else "@torch.compile"
    step = free_name_in(site.tree or ast.Module(body=[], type_ignores=[]), f"_{function.name}_step")
    body_indent = loop.body[0].col_offset
    body = [ln[body_indent:] if ln.strip() else "" for ln in lines[loop.body[0].lineno - 1 : loop.end_lineno]]
    returned = ", ".join(assigned)
    parameters = ", ".join(["self", *carried] if method_options is not None else carried)
    step_def = [decorator, f"def {step}({parameters}):", *(f"    {ln}" if ln else "" for ln in body)]
    step_def.append(f"    return {returned}")
    outer = [ln[margin:] for ln in lines[function.lineno - 1 : function.end_lineno]]
    callee = f"self.{step}" if method_options is not None else step
    call = f"{' ' * (body_indent - margin)}{returned} = {callee}({', '.join(carried)})"
    after_loop = (loop.end_lineno or loop.lineno) - function.lineno + 1
    rewritten = [*outer[: loop.lineno - function.lineno + 1], call, *outer[after_loop:]]
    return "\n".join(step_def), "\n".join(rewritten)


# -- the loop in a module's `forward`, the module compiled whole ---------------------------------------------------
def _whole_compile(tree: ast.Module, source: str, instances: set[str]) -> tuple[ast.Assign, str, str] | None:
    """`compiled = torch.compile(model, OPTIONS)` at module level for one of the instances: (it, `model`, the
    options as written)."""
    for statement in (s for s in tree.body if isinstance(s, ast.Assign)):
        call = statement.value
        if not isinstance(call, ast.Call) or not is_compile(call) or len(call.args) != 1:
            continue
        if ast.unparse(call.args[0]) in instances:
            options = ", ".join(ast.get_source_segment(source, k) or ast.unparse(k) for k in call.keywords)
            return statement, ast.unparse(call.args[0]), options
    return None


def compile_forward_loop_body(site: Site) -> tuple[Edit, ...] | str:
    """```
    class Refiner(nn.Module):                          class Refiner(nn.Module):
        def forward(self, x, iters):                       @torch.compile(backend="eager")
            flow = torch.zeros_like(x)                     def _forward_step(self, flow, x):
            for _ in range(iters):               ->            flow = flow + self.update(x + flow)
                flow = flow + self.update(x + flow)            return flow
            return flow
                                                           def forward(self, x, iters):
    compiled = torch.compile(model, backend="eager")           flow = torch.zeros_like(x)
                                                               for _ in range(iters):
                                                                   flow = self._forward_step(flow, x)
                                                               return flow

                                                       compiled = model
    ```
    The same fix for a module compiled whole whose `forward` unrolls a loop over an int argument: the body a
    compiled method, the module itself no longer compiled (the file's one `torch.compile` of its instance)."""
    bound = (site.facts.variable or "").split(".")[0]
    found = _compiled_forward(site, bound) if bound.isidentifier() else "the changing int is not known"
    if isinstance(found, str):
        return found
    method, loop, compiled = found
    why_not = _why_not_extracted(loop)
    carried, assigned = _step_values(method, loop)
    if why_not is not None or not assigned or "self" not in carried:
        return why_not or "the loop's body assigns nothing it could return"
    statement, model, options = compiled
    step, rewritten = _rewritten(site, method, loop, [c for c in carried if c != "self"], assigned, options)
    target = ast.unparse(statement.targets[0])
    return (
        InsertBefore(method.lineno, step),  # its own statement: the blank line above `forward` stays between them
        ReplaceStatement(method.lineno, rewritten),
        ReplaceStatement(statement.lineno, f"{target} = {model}"),
    )


def _compiled_forward(site: Site, bound: str) -> tuple[ast.FunctionDef, ast.For, tuple[ast.Assign, str, str]] | str:
    """The `forward` looping over `range(bound)` of a module compiled whole in this file: the class holding the
    line, else any class of the file (the line calls the compiled module)."""
    tree, held = site.tree, site.enclosing_class()
    if tree is None:
        return "the file does not parse"
    classes = [held] if held is not None else [c for c in tree.body if isinstance(c, ast.ClassDef)]
    for cls in classes:
        forward = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "forward"), None)
        loop = _bounded_loop(forward, bound) if forward is not None else None
        compiled = _whole_compile(tree, site.source, instances_of(tree, cls.name))
        if forward is not None and loop is not None and compiled is not None:
            return forward, loop, compiled
    return f"no module compiled whole in this file has a `forward` looping over `range({bound})`"
