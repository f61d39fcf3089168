"""Recompiles that a sweep makes by design: a loop over a fixed set of distinct functions, models or configs, each
compiled once. A tensor or a dynamic shape cannot remove them (each item is other code, or a new module whose
parameters torch keeps static); what goes wrong is that past the recompile limit torch drops the remaining items
to eager. Told apart here from a cause that a tensor or `mark_dynamic` removes, read from the file's syntax tree
(never run): the `torch.compile` call inside a loop over a literal collection (a new compiled object per item), or
the compiled function called in such a loop with the loop's variable where its guards saw a different object.
The fixes: the recompile limit raised to the sweep's size (the recompiles stay, no item runs eagerly), or the
compile caches reset at the start of each item (each compiles afresh, none is a recompile)."""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass

from torchcompile_doctor.model.edits import AfterTorchImport, Edit, InsertBefore, ReplaceStatement
from torchcompile_doctor.transforms.line_code import dotted_name
from torchcompile_doctor.transforms.site import Site

# guards that fail because the value is another object (a function, a module, its code): no tensor carries that
DISTINCT_OBJECTS = frozenset({"object_id", "type_change", "module_structure"})
LIMIT_SETTINGS = ("recompile_limit", "cache_size_limit")  # cache_size_limit: torch's alias of recompile_limit
ACCUMULATED_LIMIT = 256  # torch._dynamo.config.accumulated_recompile_limit, 2.11 to 2.15
RESET = "torch.compiler.reset()"
_COMPILE_CALLS = ("torch.compile",)
_Loop = ast.For | ast.comprehension


@dataclass(frozen=True)
class Sweep:
    """A loop over a fixed set of items whose every item compiles the same code object again by design."""

    line: int  # the loop's first line: a `for` statement, or the statement holding the comprehension
    items: int  # how many items it goes over (each one cache entry)
    over: str  # the iterable as written (`ACTIVATIONS`, `(4, 8, 12)`)
    statement: bool  # a `for` statement (a reset can start its body), not a comprehension
    compiled_per_item: bool  # the `torch.compile` call is in the loop: a new compiled object per item

    @property
    def words(self) -> str:
        return self.words_in(None)

    def words_in(self, file: str | None) -> str:
        """In words, its loop named by line (and by file, where it is not the finding's)."""
        what = "compiles a new model for each" if self.compiled_per_item else "calls it with each"
        where = f"{file}:{self.line}" if file else f"line {self.line}"
        return f"the loop at {where} {what} of the {self.items} items of `{self.over}`"


def inherent_sweep(source: str, line: int, variable: str | None, reason_class: str | None) -> Sweep | None:
    """The sweep that makes the recompiles of the code compiled at `line` (its `torch.compile` call, or the
    decorator or `def` of the compiled function), when they are inherent: None where a tensor, a dynamic shape or
    one object made once would remove them (a number or an input's shape that changes, an object made anew on
    every call)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    compile_call = _compile_statement(tree, line)
    if compile_call is not None:
        per_item = _compiled_per_item(tree, compile_call)
        if per_item is not None:
            return per_item
    if reason_class not in DISTINCT_OBJECTS:
        return None
    name = _compiled_name(tree, line)
    root = (variable or "").split(".")[0].split("[")[0]
    for call in (c for c in ast.walk(tree) if isinstance(c, ast.Call) and _callee(c) == name):
        loop = _innermost_loop(tree, call)
        passed = _passed_names(call, _parameter_of(tree, line, root))
        if loop is None or not passed & _targets(loop):
            continue
        items = finite_length(_iterable(loop), tree)
        if items is not None:
            return _sweep(loop, _statement_of(tree, call), items, compiled_per_item=False)
    return None


def _compiled_per_item(tree: ast.Module, compile_call: ast.stmt) -> Sweep | None:
    """The literal loop the `torch.compile` call stands in, or that calls the module-level function holding it
    (`def build(h): return torch.compile(make(h))` called for each item)."""
    loop = _innermost_loop(tree, compile_call)
    if loop is not None and (items := finite_length(_iterable(loop), tree)) is not None:
        return _sweep(loop, compile_call, items, compiled_per_item=True)
    if loop is not None:
        return None
    helper = next(
        (f for f in tree.body if isinstance(f, ast.FunctionDef) and any(n is compile_call for n in ast.walk(f))), None
    )
    for call in (
        c for c in ast.walk(tree) if helper is not None and isinstance(c, ast.Call) and _callee(c) == helper.name
    ):
        loop = _innermost_loop(tree, call)
        if loop is not None and (items := finite_length(_iterable(loop), tree)) is not None:
            return _sweep(loop, _statement_of(tree, call), items, compiled_per_item=True)
    return None


def _sweep(loop: _Loop, at: ast.AST | None, items: int, *, compiled_per_item: bool) -> Sweep:
    line = loop.lineno if isinstance(loop, ast.For) else getattr(at, "lineno", 0)
    return Sweep(line, items, ast.unparse(_iterable(loop)), isinstance(loop, ast.For), compiled_per_item)


# -- how many items a loop goes over, from literals alone ---------------------------------------------------------
def finite_length(node: ast.expr, tree: ast.Module) -> int | None:
    """The number of items `node` yields, where the code says it: a literal list, tuple, set or dict, a module
    name bound once to one, `range` of integer literals, and `enumerate`/`zip`/`itertools.product`/`sorted`/
    `reversed`/`list`/`tuple`/`.items()` of those (None: not known without running the code)."""
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return None if any(isinstance(e, ast.Starred) for e in node.elts) else len(node.elts)
    if isinstance(node, ast.Dict):
        return None if any(k is None for k in node.keys) else len(node.keys)
    if isinstance(node, ast.Name):
        bound = _bound_once(tree, node.id)
        return finite_length(bound, tree) if bound is not None else None
    if isinstance(node, ast.Call) and not node.keywords:
        return _call_length(node, tree)
    return None


def _call_length(node: ast.Call, tree: ast.Module) -> int | None:
    callee, args = dotted_name(node.func) or "", node.args
    bounds = [a.value for a in args if isinstance(a, ast.Constant) and type(a.value) is int]
    if callee == "range":
        return len(range(*bounds)) if args and len(bounds) == len(args) else None
    if isinstance(node.func, ast.Attribute) and node.func.attr in ("items", "keys", "values") and not args:
        return finite_length(node.func.value, tree)
    lengths = [finite_length(a, tree) for a in args]
    known = [n for n in lengths if n is not None]
    if not known or len(known) != len(lengths):
        return None
    if callee in ("enumerate", "sorted", "reversed", "list", "tuple") and len(known) == 1:
        return known[0]
    if callee == "zip":
        return min(known)
    return math.prod(known) if callee in ("itertools.product", "product") else None


def _bound_once(tree: ast.Module, name: str) -> ast.expr | None:
    """The value a module-level name is bound to, when the module binds it exactly once."""
    values = [
        s.value
        for s in tree.body
        if isinstance(s, ast.Assign | ast.AnnAssign)
        and any(
            isinstance(t, ast.Name) and t.id == name for t in (s.targets if isinstance(s, ast.Assign) else [s.target])
        )
    ]
    return values[0] if len(values) == 1 else None


# -- the compiled code and the loops around its calls ---------------------------------------------------------------
def _is_compile(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and (
        dotted_name(node.func) in _COMPILE_CALLS
        or (isinstance(node.func, ast.Attribute) and node.func.attr == "compile")
    )


def _compile_statement(tree: ast.Module, line: int) -> ast.stmt | None:
    """The simple statement calling `torch.compile` (or a module's `.compile()`) at `line`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and not _compound(node) and node.lineno <= line <= (node.end_lineno or 0):
            if any(_is_compile(c) for c in ast.walk(node)):
                return node
    return None


def _compound(node: ast.stmt) -> bool:
    return bool(getattr(node, "body", None))


def _compiled_name(tree: ast.Module, line: int) -> str | None:
    """The name the compiled code is called by: the function decorated at `line` (its decorator or `def`), or the
    target of `name = torch.compile(...)` there."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            if first <= line <= node.lineno and any(
                _is_compile(d) or dotted_name(d) in _COMPILE_CALLS for d in node.decorator_list
            ):
                return node.name
        if isinstance(node, ast.Assign) and node.lineno == line and _is_compile(node.value):
            targets = [t.id for t in node.targets if isinstance(t, ast.Name)]
            return targets[0] if len(targets) == 1 else None
    return None


def _parameter_of(tree: ast.Module, line: int, name: str) -> int | None:
    """The position of parameter `name` of the function decorated at `line` (None: not one of its parameters)."""
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.FunctionDef)
            and min([node.lineno, *(d.lineno for d in node.decorator_list)]) <= line <= node.lineno
        ):
            names = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
            return names.index(name) if name in names else None
    return None


def _callee(call: ast.Call) -> str | None:
    return call.func.id if isinstance(call.func, ast.Name) else None


def _passed_names(call: ast.Call, position: int | None) -> set[str]:
    """The plain names a call passes: at the guarded parameter's position where it is known, else all of them."""
    if position is not None:
        passed: list[ast.expr] = [call.args[position]] if position < len(call.args) else []
    else:
        passed = [*call.args, *(k.value for k in call.keywords)]
    return {a.id for a in passed if isinstance(a, ast.Name)}


def _iterable(loop: _Loop) -> ast.expr:
    return loop.iter


def _targets(loop: _Loop) -> set[str]:
    return {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}


def _innermost_loop(tree: ast.Module, inner: ast.AST) -> _Loop | None:
    """The innermost `for` statement or comprehension whose body holds `inner`."""
    line = getattr(inner, "lineno", 0)
    found: tuple[int, _Loop] | None = None
    for node in ast.walk(tree):
        loops: list[tuple[int, _Loop]] = []
        if isinstance(node, ast.For) and node.body[0].lineno <= line <= (node.end_lineno or 0):
            loops.append((node.body[0].lineno, node))
        elif isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            if any(n is inner for n in ast.walk(node)) and len(node.generators) == 1:
                loops.append((node.lineno, node.generators[0]))
        for start, loop in loops:
            if found is None or start >= found[0]:
                found = (start, loop)
    return found[1] if found else None


def _statement_of(tree: ast.Module, inner: ast.AST) -> ast.stmt | None:
    line = getattr(inner, "lineno", 0)
    held = [s for s in ast.walk(tree) if isinstance(s, ast.stmt) and s.lineno <= line <= (s.end_lineno or 0)]
    return max(held, key=lambda s: s.lineno, default=None)


# -- the transforms -------------------------------------------------------------------------------------------------
def _limit_set_at(tree: ast.Module) -> ast.stmt | None:
    """A module-level `torch._dynamo.config.recompile_limit = N` (or its alias) the file makes itself."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = dotted_name(node.targets[0]) or ""
            if target.rpartition(".")[2] in LIMIT_SETTINGS and target.startswith("torch._dynamo.config."):
                return node
    return None


def raise_recompile_limit(site: Site) -> tuple[Edit, ...] | str:
    """`torch._dynamo.config.recompile_limit = N` after `import torch`, N the sweep's items: only for a sweep
    whose recompiles are inherent (the facts say it). The recompiles stay; no item runs eagerly past the limit."""
    items, tree = site.facts.sweep_items, site.tree
    if items is None or tree is None:
        return "the recompiles are not a sweep's: removing their cause is the fix, not a higher limit"
    code = f"torch._dynamo.config.recompile_limit = {items}  # one compile per item of the sweep is inherent"
    if items > ACCUMULATED_LIMIT:
        code += f"\ntorch._dynamo.config.accumulated_recompile_limit = {items}"
    own = _limit_set_at(tree)
    if own is not None:  # the program sets the limit itself: that setting is the one raised
        return (ReplaceStatement(own.lineno, code),)
    return (AfterTorchImport(code),)


def reset_between_items(site: Site) -> tuple[Edit, ...] | str:
    """`torch.compiler.reset()` as the first statement of the sweep's `for` loop: each item compiles afresh, so
    no cache entry piles up to the recompile limit (and no compile is a recompile)."""
    loop_line, tree = site.facts.sweep_loop, site.tree
    if loop_line is None or tree is None:
        return "the recompiles are not a sweep's"
    loop = next((n for n in ast.walk(tree) if isinstance(n, ast.For) and n.lineno == loop_line), None)
    if loop is None:
        return f"the sweep at line {loop_line} is a comprehension: there is no loop body to reset in"
    first = loop.body[0]
    if isinstance(first, ast.Expr) and ast.unparse(first.value) == RESET:
        return "the loop resets the compile caches already"
    return (InsertBefore(first.lineno, RESET),)


# -- a sweep over literal numbers: the limit raised only as the alternative of the fixes that remove its cause ------
def _literal_numbers(node: ast.expr, tree: ast.Module) -> bool:
    """`node` yields numbers the code writes out: a literal list, tuple or set of int/float constants (or a module
    name bound once to one), or `range` of integer literals."""
    if isinstance(node, ast.Name):
        bound = _bound_once(tree, node.id)
        return bound is not None and _literal_numbers(bound, tree)
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return bool(node.elts) and all(_number(e) for e in node.elts)
    return isinstance(node, ast.Call) and dotted_name(node.func) == "range" and finite_length(node, tree) is not None


def _number(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def _compiled_names(tree: ast.Module, line: int) -> set[str]:
    """The names the code compiled at `line` is called by: those of `_compiled_name`, and for a plain `def f` the
    targets of `g = torch.compile(f, ...)`."""
    names = {name} if (name := _compiled_name(tree, line)) else set()
    defined = next((f.name for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and f.lineno == line), None)
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and _is_compile(node.value) and isinstance(node.value, ast.Call):
            compiled = node.value.args[0] if node.value.args else None
            if defined is not None and isinstance(compiled, ast.Name) and compiled.id == defined:
                names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def number_sweep(source: str, line: int) -> Sweep | None:
    """The loop over a literal set of numbers whose variable is passed to the code compiled at `line` (its
    `torch.compile` call, its decorator or `def`): each number a guarded constant, so each item compiles once.
    Whether that is inherent (a loop bound, a pooling kernel) or a cause (a margin a tensor carries) only a
    measurement tells: the limit raised is offered beside the tensor and dynamic fixes, never instead of them."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    names = _compiled_names(tree, line)
    for call in (c for c in ast.walk(tree) if isinstance(c, ast.Call) and _callee(c) in names):
        loop = _innermost_loop(tree, call)
        if loop is None or not _passed_names(call, None) & _targets(loop):
            continue
        if _literal_numbers(_iterable(loop), tree) and (items := finite_length(_iterable(loop), tree)) is not None:
            return _sweep(loop, _statement_of(tree, call), items, compiled_per_item=False)
    return None
