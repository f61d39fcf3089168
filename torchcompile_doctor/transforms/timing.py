"""A compiled function that times itself (a clock read before its work and the elapsed time recorded after it, a
`with Timer(...):` block around its work, the elapsed time returned beside its result) timed at the caller
instead: the timing statements moved out of the function to wrap each line of the file that calls it compiled, so
the same container gets one record per call and the compiled code reads no clock. Read from the site's file alone:
the function's compiled name is found where the file compiles it (`@torch.compile`, `f = torch.compile(g)`,
`model = torch.compile(Net())`, `model.compile()`)."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from torchcompile_doctor.model.edits import Edit, InsertAfter, InsertBefore, RemoveStatement, ReplaceStatement
from torchcompile_doctor.transforms.call_source import local_names, renamed
from torchcompile_doctor.transforms.line_code import dotted_name, is_compile, names_bound, names_read
from torchcompile_doctor.transforms.module_callers import (
    calls_by_name,
    compiled_function_names,
    compiled_module_callers,
    instances_of,
)
from torchcompile_doctor.transforms.side_effects import reads_clock, timing_block
from torchcompile_doctor.transforms.site import Site, innermost_statement

Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class CallLine:
    """A statement of the file that calls the function compiled: `out = cmodel(x)`, `loss, t = step(x, y)`."""

    statement: ast.stmt
    receiver: str  # what `self` in the function's own code reads as there: the module compiled, else its name
    targets: tuple[str, ...] | None  # the names the call's result is unpacked into (None: no tuple unpacking)


def _compiled_names(tree: ast.Module, function: Function, owner: ast.ClassDef | None) -> dict[str, str]:
    """The names the file calls the function by (compiled, and the eager ones beside them; none where the file
    never compiles it), each with what a method's `self` reads as there: a decorated function's own name, the
    names bound to `torch.compile(f)`, and for a module's `forward` the names its compiled module is called by
    (module_callers.py: `self` read as the instance whose attributes the caller reaches)."""
    if owner is None and any(is_compile(d) for d in function.decorator_list):
        return {function.name: function.name}
    if owner is None:
        names = dict.fromkeys(compiled_function_names(tree, function.name), function.name)
        eager = {function.name}
    elif function.name == "forward":
        names, eager = compiled_module_callers(tree, owner.name), instances_of(tree, owner.name)
    else:
        return {}
    # the function run eagerly too (`model(x)` beside `cmodel(x)`, `f(x)` beside `g = torch.compile(f)`) recorded
    # its timing as well: those calls are timed alike, so the record keeps its count
    if not names:
        return {}
    return names | {name: name for name in eager if name not in names}


_SIMPLE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)


def _call_line(tree: ast.Module, call: ast.Call, function: Function, receiver: str) -> CallLine | str:
    """The simple statement holding the call (`y = f(x)`, `a, b = f(x)`, `f(x)`, `loss = fn(f(x), y)`: the clock
    read around it times the call once), else why not (a `return`, a loop's header, a comprehension or lambda)."""
    held = innermost_statement(tree, call.lineno)
    if held is None or function.lineno <= call.lineno <= (function.end_lineno or 0):
        return f"the call at line {call.lineno} is the function's own"
    scoped = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
    inner = [n for n in ast.walk(held) if isinstance(n, scoped) and any(c is call for c in ast.walk(n))]
    if not isinstance(held, _SIMPLE) or inner or not any(c is call for c in ast.walk(held)):
        return f"the call at line {call.lineno} is not made once by a statement of its own"
    targets = None
    if isinstance(held, ast.Assign) and held.value is call and isinstance(held.targets[0], ast.Tuple):
        elements = held.targets[0].elts
        if not all(isinstance(e, ast.Name) for e in elements) or len(held.targets) > 1:
            return f"the call at line {call.lineno} unpacks into more than names"
        targets = tuple(e.id for e in elements if isinstance(e, ast.Name))
    return CallLine(held, receiver, targets)


def _call_lines(tree: ast.Module, names: dict[str, str], function: Function) -> list[CallLine] | str:
    """Every call of a compiled name in the file, each a statement of its own (`y = f(x)`, `a, b = f(x)`,
    `f(x)`); why not, where one is a call inside a larger expression (no statement to wrap)."""
    calls = calls_by_name(tree, names)
    if not calls:
        return "the file never calls the compiled function"
    made = []
    for call in calls:
        line = _call_line(tree, call, function, names[dotted_name(call.func) or ""])
        if isinstance(line, str):
            return line
        made.append(line)
    return made


def _compiled_function(site: Site, function: Function) -> tuple[list[CallLine], bool] | str:
    """The lines calling the function compiled, and whether it is a method (its `self` read as the callee)."""
    tree = site.tree
    if tree is None:
        return "the file does not parse"
    owner = site.enclosing_class()
    if owner is not None and function not in owner.body:
        owner = None
    names = _compiled_names(tree, function, owner)
    if not names:
        return f"`{function.name}` is not compiled in this file"
    lines = _call_lines(tree, names, function)
    return lines if isinstance(lines, str) else (lines, owner is not None)


def time_at_caller(site: Site) -> tuple[Edit, ...] | str:
    """`t0 = time.perf_counter()` ... `self.timings.append(time.perf_counter() - t0)` in a compiled function ->
    the clock read before each line that calls it and the record after it (`self` read as the compiled name
    called); `return y, time.time() - t0` -> `return y`, and the caller's `y, elapsed = f(x)` -> `y = f(x)`
    between the clock read and `elapsed = time.time() - t0`. Only where the recording reads nothing of the
    function's own but the clock reads and `self`: a clock read whose value feeds the computation stays."""
    function = site.function()
    if function is None:
        return "the line is in no function"
    block = timing_block(function.body, site.line, returns=True)
    if block is None:
        return f"line {site.line} is in no timing block of `{function.name}`"
    found = _compiled_function(site, function)
    if isinstance(found, str):
        return found
    calls, method = found
    start, recording = block[0], block[1:]
    timing_names = {n for s in block for n in names_bound(s)}
    own = local_names(function) - timing_names - {"self"}
    fed = [s for s in recording if names_bound(s) and not reads_clock(s)]
    if fed:  # `y = x * t0`: a value computed from the clock read, not a measurement of the time spent
        return f"the clock read's value feeds `{site.code(fed[0]).split('=')[0].strip()}`"
    if any(isinstance(s, ast.Return) for s in recording):
        if len(recording) != 1:
            return "the elapsed time is both recorded and returned"
        return _returned_elapsed(site, function, (start, recording[0]), calls, (timing_names, own))
    if any(names_read(s) & own for s in recording):
        return "the recording reads values of the function's own"
    counters = _counters(function, block, own)
    edits: list[Edit] = [RemoveStatement(s.lineno) for s in (*counters, *block)]
    for call in calls:
        before = "\n".join(_as_callee(site.code(s), call.receiver, method) for s in (*counters, start))
        edits.append(InsertBefore(call.statement.lineno, before))
        moved = "\n".join(_as_callee(site.code(s), call.receiver, method) for s in recording)
        edits.append(InsertAfter(call.statement.lineno, moved))
    return tuple(edits)


def _returned_elapsed(
    site: Site,
    function: Function,
    block: tuple[ast.stmt, ast.stmt],
    calls: list[CallLine],
    names: tuple[set[str], set[str]],
) -> tuple[Edit, ...] | str:
    """`return y, time.time() - t0` -> `return y`, each caller's `y, elapsed = f(x)` made `t0 = time.time()`,
    `y = f(x)`, `elapsed = time.time() - t0`; `return {"loss": y, "time": time.time() - t0}` -> `return {"loss":
    y}`, each caller's `out = f(x)` followed by `out["time"] = time.time() - t0` (`names`: the timing block's, the
    function's other locals)."""
    start, back = block
    timing, own = names
    value = back.value if isinstance(back, ast.Return) else None
    items = value.elts if isinstance(value, ast.Tuple) else value.values if isinstance(value, ast.Dict) else []
    timed = [i for i, item in enumerate(items) if names_read(item) & timing]
    returns = [n for n in ast.walk(function) if isinstance(n, ast.Return)]
    if len(timed) != 1 or len(returns) != 1 or names_read(items[timed[0]]) & own:
        return "the function returns the elapsed time other than once, as one item of a tuple or dict"
    at = timed[0]
    if isinstance(value, ast.Dict):
        return _returned_in_dict(site, (start, back), value, at, calls)
    kept = [site.code(item) for i, item in enumerate(items) if i != at]
    edits: list[Edit] = [RemoveStatement(start.lineno), ReplaceStatement(back.lineno, f"return {', '.join(kept)}")]
    for call in calls:
        if call.targets is None or len(call.targets) != len(items):
            return f"the call at line {call.statement.lineno} does not unpack the returned items into names"
        unpacked = [n for i, n in enumerate(call.targets) if i != at]
        called = site.code(call.statement.value) if isinstance(call.statement, ast.Assign) else ""
        code = "\n".join(
            (
                site.code(start),
                f"{', '.join(unpacked)} = {called}",
                f"{call.targets[at]} = {site.code(items[at])}",
            )
        )
        edits.append(ReplaceStatement(call.statement.lineno, code))
    return tuple(edits)


def _returned_in_dict(
    site: Site, block: tuple[ast.stmt, ast.stmt], value: ast.Dict, at: int, calls: list[CallLine]
) -> tuple[Edit, ...] | str:
    """The timed entry left out of the returned dict and set by each caller on the dict it binds."""
    start, back = block
    key = value.keys[at]
    pairs = list(zip(value.keys, value.values, strict=True))
    if key is None or any(k is None for k, _ in pairs):  # `**other`
        return "the elapsed time is returned in a dict unpacked into another"
    kept = [f"{site.code(k)}: {site.code(v)}" for i, (k, v) in enumerate(pairs) if i != at and k is not None]
    kept_code = "{" + ", ".join(kept) + "}"
    edits: list[Edit] = [RemoveStatement(start.lineno), ReplaceStatement(back.lineno, f"return {kept_code}")]
    for call in calls:
        held = call.statement
        if not (isinstance(held, ast.Assign) and len(held.targets) == 1 and isinstance(held.targets[0], ast.Name)):
            return f"the call at line {held.lineno} does not bind the returned dict to a name"
        set_entry = f"{held.targets[0].id}[{site.code(key)}] = {site.code(value.values[at])}"
        edits += [InsertBefore(held.lineno, site.code(start)), InsertAfter(held.lineno, set_entry)]
    return tuple(edits)


def _counters(function: Function, block: list[ast.stmt], own: set[str]) -> list[ast.stmt]:
    """The call counters that go with the timing (`stats["calls"] += 1`, `self.calls += 1`): a statement of the
    body that adds to an item or attribute of a global (or of `self`) and reads nothing of the function's own, its
    container read nowhere else in the function. Moved to the caller with the timing: an int counted in compiled
    code is guarded as a constant, a recompile per call."""
    made = []
    for statement in function.body:
        target = statement.target if isinstance(statement, ast.AugAssign) else None
        if statement in block or not isinstance(target, (ast.Subscript, ast.Attribute)):
            continue
        root = target.value
        while isinstance(root, (ast.Subscript, ast.Attribute)):
            root = root.value
        if not isinstance(root, ast.Name) or names_read(statement) & own:
            continue
        elsewhere = [s for s in function.body if s is not statement and s not in block]
        if not any(root.id in names_read(s) for s in elsewhere):
            made.append(statement)
    return made


def _as_callee(code: str, callee: str, method: bool) -> str:
    return renamed(code, "self", callee) if method else code


def _timer_class(site: Site) -> ast.ClassDef | None:
    """The class of the user's that holds the site and reads the clock in `__enter__` or `__exit__`."""
    owner = site.enclosing_class()
    if owner is None:
        return None
    methods = {m.name: m for m in owner.body if isinstance(m, ast.FunctionDef)}
    if "__enter__" not in methods or "__exit__" not in methods:
        return None
    return owner if reads_clock(methods["__enter__"]) or reads_clock(methods["__exit__"]) else None


def _function_of(tree: ast.Module, statement: ast.stmt) -> Function | None:
    found = None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement in node.body:
            found = node
    return found


def unwrap_timer_block(site: Site) -> tuple[Edit, ...] | str:
    """A timing context manager (`with Timer(self.timings):` around a compiled function's work, the clock read in
    its `__enter__`/`__exit__`) unwrapped in the function, and each line that calls the function compiled put in
    the same `with` (`self` read as the compiled name called): one record per call, as before."""
    tree = site.tree
    timer = _timer_class(site)
    if tree is None or timer is None:
        return f"line {site.line} is in no context manager class that reads the clock"
    blocks = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.With)
        and len(n.items) == 1
        and n.items[0].optional_vars is None
        and isinstance(n.items[0].context_expr, ast.Call)
        and dotted_name(n.items[0].context_expr.func) == timer.name
    ]
    edits: list[Edit] = []
    for block in blocks:
        function = _function_of(tree, block)
        if function is None:
            continue
        owner = next((c for c in ast.walk(tree) if isinstance(c, ast.ClassDef) and function in c.body), None)
        names = _compiled_names(tree, function, owner)
        calls = _call_lines(tree, names, function) if names else "not compiled"
        if isinstance(calls, str):
            continue
        body = "\n".join(_dedented(site, s, block.body[0].col_offset) for s in block.body)
        edits.append(ReplaceStatement(block.lineno, body))
        manager = site.code(block.items[0].context_expr)
        for call in calls:
            inner = site.code(call.statement)
            edits.append(
                ReplaceStatement(
                    call.statement.lineno, f"with {_as_callee(manager, call.receiver, owner is not None)}:\n    {inner}"
                )
            )
    return tuple(edits) if edits else f"no compiled function in the file times its work with `{timer.name}`"


def _dedented(site: Site, statement: ast.stmt, indent: int) -> str:
    """The statement's code, its lines after the first moved left by the block's indentation."""
    lines = site.code(statement).splitlines()
    return "\n".join([lines[0], *(line[indent:] for line in lines[1:])])


def _decorator_of(tree: ast.Module, wrapper: Function) -> Function | None:
    """The decorator function (`def timed(fn):`) whose inner function is `wrapper`, taking the decorated one."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and wrapper in node.body and len(node.args.args) == 1:
            return node
    return None


def _decorated(tree: ast.Module, decorator: str) -> list[ast.FunctionDef]:
    return [
        n
        for n in tree.body
        if isinstance(n, ast.FunctionDef) and any(dotted_name(d) == decorator for d in n.decorator_list)
    ]


def _helper_calls(tree: ast.Module, helper: str) -> list[tuple[Function, ast.Call]]:
    """Each call of the helper, with the module-level function that makes it (None-less: calls at module level
    are left out, and counted by the caller)."""
    made = []
    for function in (n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
        for node in ast.walk(function):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == helper:
                made.append((function, node))
    return made


def untimed_helper(site: Site) -> tuple[Edit, ...] | str:
    """A timing decorator (`@timed`, whose wrapper reads the clock around the call and records under the
    decorated function) taken off a helper that compiled code calls once per call, and the compiled calls timed
    at the caller into the same record (`TIMINGS[fn.__name__]` read as `TIMINGS[encode.__name__]`)."""
    tree, wrapper = site.tree, site.function()
    decorator = _decorator_of(tree, wrapper) if tree is not None and wrapper is not None else None
    if tree is None or wrapper is None or decorator is None:
        return f"line {site.line} is in no decorator's wrapper"
    block = timing_block(wrapper.body, site.line)
    if block is None:
        return f"line {site.line} is in no timing block of `{wrapper.name}`"
    own = local_names(wrapper) - {n for s in block for n in names_bound(s)}
    if any(names_read(s) & own for s in block[1:]):
        return "the recording reads values of the wrapper's own"
    edits: list[Edit] = []
    for helper in _decorated(tree, decorator.name):
        made = _helper_timed_at_caller(site, helper, block, decorator.args.args[0].arg)
        if isinstance(made, str):
            return made
        edits += made
    return tuple(edits) if edits else f"no function of the file is decorated with `{decorator.name}`"


def _helper_timed_at_caller(
    site: Site, helper: ast.FunctionDef, block: list[ast.stmt], parameter: str
) -> list[Edit] | str:
    """The decorator taken off the helper, and each function that calls it (once, compiled) timed at its calls."""
    tree = site.tree
    callers = _helper_calls(tree, helper.name) if tree is not None else []
    if tree is None or not callers or len({id(f) for f, _ in callers}) != len(callers):
        return f"`{helper.name}` is called other than once by each function that calls it"
    if len(helper.decorator_list) != 1 or any(_in_loop(function, call) for function, call in callers):
        return f"`{helper.name}` is called in a loop, or decorated more than once"
    lines = site.source.splitlines()[helper.lineno - 1 : helper.end_lineno]
    edits: list[Edit] = [ReplaceStatement(helper.lineno, "\n".join(line[helper.col_offset :] for line in lines))]
    moved = "\n".join(renamed(site.code(s), parameter, helper.name) for s in block[1:])
    for function, _ in callers:
        names = _compiled_names(tree, function, None)
        calls = _call_lines(tree, names, function) if names else "not compiled"
        if isinstance(calls, str):
            return f"`{function.name}`, which calls `{helper.name}`, is not compiled and called alone"
        for call in calls:
            edits += [
                InsertBefore(call.statement.lineno, site.code(block[0])),
                InsertAfter(call.statement.lineno, moved),
            ]
    return edits


def _in_loop(function: Function, call: ast.Call) -> bool:
    loops = (n for n in ast.walk(function) if isinstance(n, (ast.For, ast.While, ast.comprehension)))
    return any(any(c is call for c in ast.walk(loop)) for loop in loops)
