"""Reading the user's code around a compiled call, to write a change at the line the user holds: which expression
the user passes for a parameter of a compiled function or module, and what a `torch.compile` statement compiles.
The code is parsed (Python's `ast`), never run."""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass

from torchcompile_doctor.events.model import CallSite
from torchcompile_doctor.transforms.line_code import names_bound


def _parsed(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
        return None


def _function_at(tree: ast.Module, line: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The function whose code starts at `line` (its `def`, or its first decorator: Python's co_firstlineno)."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            if line in (node.lineno, first):
                return node
    return None


def parameter_position(source: str, function_line: int, parameter: str) -> int | None:
    """Where `parameter` stands among the arguments a caller passes by position (a method's `self` left out);
    None when it is keyword-only or not a parameter of the function there."""
    tree = _parsed(source)
    function = _function_at(tree, function_line) if tree is not None else None
    if function is None:
        return None
    positional = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    if positional and positional[0] in ("self", "cls"):
        positional = positional[1:]
    return positional.index(parameter) if parameter in positional else None


def _call_of_site(tree: ast.Module, site: CallSite) -> ast.Call | None:
    """The call the site recorded: the one at its exact columns when known, else the only call on its line."""
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and n.lineno <= site.line <= (n.end_lineno or 0)]
    if site.column is not None:
        exact = [
            c for c in calls if (c.lineno, c.col_offset, c.end_col_offset) == (site.line, site.column, site.end_column)
        ]
        return exact[0] if exact else None
    on_line = [c for c in calls if c.lineno == site.line]
    return on_line[0] if len(on_line) == 1 else None


def argument_expression(source: str, site: CallSite, parameter: str, position: int | None) -> str | None:
    """The expression the call at `site` passes for `parameter` (by keyword, else at `position`), as the user wrote
    it; None when the call cannot be found or passes it through `*args`/`**kwargs`."""
    tree = _parsed(source)
    call = _call_of_site(tree, site) if tree is not None else None
    if call is None:
        return None
    for keyword in call.keywords:
        if keyword.arg == parameter:
            return ast.get_source_segment(source, keyword.value)
    if (
        position is None
        or position >= len(call.args)
        or any(isinstance(a, ast.Starred) for a in call.args[: position + 1])
    ):
        return None
    return ast.get_source_segment(source, call.args[position])


def is_plain_reference(expression: str) -> bool:
    """A name, attribute or subscript of names: evaluating it once more before the call changes nothing."""
    try:
        node = ast.parse(expression, mode="eval").body
    except SyntaxError:
        return False
    for part in ast.walk(node):
        if not isinstance(part, (ast.Name, ast.Attribute, ast.Subscript, ast.Constant, ast.Load, ast.Slice)):
            return False
    return True


def imports_torch(source: str) -> bool:
    """The module binds `torch` at its top level (`import torch`)."""
    tree = _parsed(source)
    return tree is not None and any(
        isinstance(node, ast.Import) and any(alias.name == "torch" and alias.asname is None for alias in node.names)
        for node in tree.body
    )


@dataclass(frozen=True)
class CompileStatement:
    """`TARGET = torch.compile(MODEL, KEYWORDS)` at one line of the user's."""

    target: str  # what the compiled model is assigned to: `model`, `self.net`
    model: str  # what was compiled: `Model()`, `model`
    keywords: str  # the call's keyword arguments as written: `backend="eager"`, or ""


def compile_statement(source: str, line: int) -> CompileStatement | None:
    """The assignment at `line` whose value is a `torch.compile(...)` call of one model, if that is what it is."""
    tree = _parsed(source)
    if tree is None:
        return None
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign) or not (node.lineno <= line <= (node.end_lineno or node.lineno)):
            continue
        call = node.value
        if len(node.targets) != 1 or not isinstance(call, ast.Call) or len(call.args) != 1:
            return None
        if ast.unparse(call.func) not in ("torch.compile", "compile"):
            return None
        if any(k.arg is None for k in call.keywords):  # **options: cannot be split from the model
            return None
        keywords = ", ".join(ast.get_source_segment(source, k) or "" for k in call.keywords)
        target, model = (ast.get_source_segment(source, n) for n in (node.targets[0], call.args[0]))
        if target is None or model is None:
            return None
        return CompileStatement(target, model, keywords)
    return None


def compile_callee(source: str, line: int) -> str | None:
    """How the `torch.compile` called at `line` is spelled (`torch.compile`, `compile`), as a call or as a bare
    decorator; None when no such call is there."""
    tree = _parsed(source)
    if tree is None:
        return None
    for node in ast.walk(tree):
        called = node.func if isinstance(node, ast.Call) else node
        if isinstance(called, (ast.Name, ast.Attribute)) and getattr(node, "lineno", None) == line:
            name = ast.unparse(called)
            if name in ("torch.compile", "compile"):
                return name
    return None


def function_lines(source: str, function_line: int) -> range | None:
    """The lines of the function whose code starts at `function_line` (decorators included)."""
    tree = _parsed(source)
    function = _function_at(tree, function_line) if tree is not None else None
    if function is None:
        return None
    return range(function_line, (function.end_lineno or function.lineno) + 1)


@dataclass(frozen=True)
class StepTail:
    """The end of a compiled step function that belongs outside it: `loss.backward()` and the calls after it up
    to `return loss` (an optimizer's `step()`, `zero_grad()`), which use no other name of the function's own."""

    variable: str  # what the function returns and the tail works on: `loss`
    lines: tuple[int, ...]  # the tail's statements (one line each)
    code: tuple[str, ...]  # their source, as written


def local_names(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names a function binds: its parameters and every name it assigns."""
    arguments = function.args
    names = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
    names |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
    return names | names_bound(function)


def step_tail(source: str, function_line: int, line: int) -> StepTail | None:
    """The tail that starts at `line` (a `X.backward()` statement of the function that starts at
    `function_line`), if the function ends with it and `return X`."""
    tree = _parsed(source)
    function = _function_at(tree, function_line) if tree is not None else None
    if function is None:
        return None
    body = function.body
    starts = [i for i, statement in enumerate(body) if statement.lineno == line]
    if not starts or not isinstance(body[-1], ast.Return) or not isinstance(body[-1].value, ast.Name):
        return None
    variable = body[-1].value.id
    tail = body[starts[0] : -1]
    first = tail[0] if tail else None
    if not (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Call)
        and ast.unparse(first.value.func) == f"{variable}.backward"
    ):
        return None
    if not _movable(tail, local_names(function) - {variable}):
        return None
    code = tuple(ast.get_source_segment(source, s) or "" for s in tail)
    return StepTail(variable, tuple(s.lineno for s in tail), code)


def _movable(tail: list[ast.stmt], own: set[str]) -> bool:
    """Each statement of the tail is one line of an expression that needs no value only the function has."""
    for statement in tail:
        if not isinstance(statement, ast.Expr) or statement.lineno != statement.end_lineno:
            return False
        if any(isinstance(n, ast.Name) and n.id in own for n in ast.walk(statement)):
            return False
    return True


def assigned_name(source: str, line: int) -> str | None:
    """`loss` for a statement `loss = step(x, y)` at `line` (one plain name assigned a call)."""
    tree = _parsed(source)
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Assign) and node.lineno == line and isinstance(node.value, ast.Call):
            if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                return node.targets[0].id
    return None


def renamed(code: str, old: str, new: str) -> str:
    """`code` with the name `old` written `new` (names only, not attributes or strings)."""
    tree = ast.parse(code)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == old:
            node.id = new
    return ast.unparse(tree)


_COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.Match)
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def one_line_statement(source: str, line: int) -> bool:
    """Whether the innermost statement at `line` is a simple statement on that line alone: a rewrite made from
    the line's text replaces all of it (a call spanning lines, or an `if` header, would lose its other lines)."""
    tree = _parsed(source)
    if tree is None:
        return False
    around = [
        node for node in ast.walk(tree) if isinstance(node, ast.stmt) and node.lineno <= line <= (node.end_lineno or 0)
    ]
    if not around:
        return False
    innermost = max(around, key=lambda node: node.lineno)
    return not isinstance(innermost, (*_COMPOUND, *_DEFINITIONS)) and innermost.lineno == innermost.end_lineno == line


@dataclass(frozen=True)
class EffectCall:
    """A call made for its effect in a compiled function (`record("n", x.shape[0])`), one line, that reads only
    the function's parameters (and module names): it can run after the call instead, on what the call passed."""

    line: int
    code: str
    parameters: tuple[str, ...]  # the function's parameters it reads


def effect_call(source: str, function_line: int, line: int) -> EffectCall | None:
    tree = _parsed(source)
    function = _function_at(tree, function_line) if tree is not None else None
    if function is None:
        return None
    statement = next(
        (s for s in ast.walk(function) if isinstance(s, ast.stmt) and s.lineno == line and s is not function), None
    )
    if not isinstance(statement, ast.Expr) or not isinstance(statement.value, ast.Call):
        return None
    if statement.lineno != statement.end_lineno or statement not in function.body:
        return None
    arguments = function.args
    parameters = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
    read = {n.id for n in ast.walk(statement) if isinstance(n, ast.Name)}
    if read & (local_names(function) - parameters) or "self" in read:
        return None  # it reads a value only the function computes
    return EffectCall(line, ast.get_source_segment(source, statement) or "", tuple(sorted(read & parameters)))


def _called_name(call: ast.Call) -> str | None:
    """`record` for `record(...)`, `self.record(...)` or `self.log.record(...)`: the name a call reaches."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else None


def helper_call_line(source: str, function_line: int, line: int, depth: int = 3) -> int | None:
    """The line, among the statements of the function that starts at `function_line`, of a one-line call made
    for its effect (`record("n", x.shape[0])`) that reaches `line` in a helper defined in the same file (the
    helper itself, or a helper it calls, up to `depth` calls deep); None when no such call is there. The helpers
    are found by name, as Python would look them up in this file: a module function or a method."""
    tree = _parsed(source)
    function = _function_at(tree, function_line) if tree is not None else None
    if tree is None or function is None:
        return None
    helpers = {
        node.name: node
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node is not function
    }
    reaching = {name for name, node in helpers.items() if node.lineno <= line <= (node.end_lineno or node.lineno)}
    for _ in range(depth - 1):  # the helpers that call a helper reaching the line reach it too
        reaching |= {
            name
            for name, node in helpers.items()
            if any(isinstance(n, ast.Call) and _called_name(n) in reaching for n in ast.walk(node))
        }
    for statement in function.body:
        if not isinstance(statement, ast.Expr) or not isinstance(statement.value, ast.Call):
            continue
        if statement.lineno == statement.end_lineno and _called_name(statement.value) in reaching:
            return statement.lineno
    return None


@dataclass(frozen=True)
class PrintedReturn:
    """A `print(...)` in a compiled function's own body, before its one `return`: what it prints can be returned
    beside the result and printed by the caller after the call, in the same order of lines."""

    print_line: int
    return_line: int
    values: str  # the printed arguments, as written: `"debug: hidden", tuple(h.shape)`
    keywords: str  # print's keywords as written (`sep=", "`), or ""
    result: str  # what the function returns, as written


def printed_return(source: str, function_line: int, line: int) -> PrintedReturn | None:
    """The print at `line` of the function that starts at `function_line`, if its values can be returned: a
    statement of the function's own body, with no `*args`, constant keywords, and the function's only `return`
    (with a value) its last statement."""
    tree = _parsed(source)
    function = _function_at(tree, function_line) if tree is not None else None
    if function is None:
        return None
    body = function.body
    statement = next((s for s in body if s.lineno == line), None)
    last = body[-1]
    returns = [n for n in ast.walk(function) if isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom))]
    if statement is None or not isinstance(last, ast.Return) or last.value is None or returns != [last]:
        return None
    call = statement.value if isinstance(statement, ast.Expr) else None
    if not isinstance(call, ast.Call) or not _plain_print(call):
        return None
    values = ", ".join(ast.get_source_segment(source, a) or "" for a in call.args)
    keywords = ", ".join(ast.get_source_segment(source, k) or "" for k in call.keywords)
    return PrintedReturn(line, last.lineno, values, keywords, ast.get_source_segment(source, last.value) or "")


def _plain_print(call: ast.Call) -> bool:
    """`print(a, b, sep=" ")`: values, no `*args`, only constant keywords."""
    if not (isinstance(call.func, ast.Name) and call.func.id == "print") or not call.args:
        return False
    if any(isinstance(a, ast.Starred) for a in call.args):
        return False
    return all(k.arg is not None and isinstance(k.value, ast.Constant) for k in call.keywords)


def assigned_call(source: str, line: int) -> tuple[str, str] | None:
    """(`y`, `model(torch.randn(4, 16))`) for the one-line statement `y = model(torch.randn(4, 16))` at `line`."""
    tree = _parsed(source)
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Assign) and node.lineno == line == node.end_lineno and isinstance(node.value, ast.Call):
            if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                return node.targets[0].id, ast.get_source_segment(source, node.value) or ""
    return None


def free_name(source: str, wanted: str) -> str:
    """`wanted`, or `wanted_2`, ...: a name the file does not use yet (see `free_name_in`)."""
    tree = _parsed(source)
    return free_name_in(tree, wanted) if tree is not None else wanted


def free_name_in(tree: ast.Module, wanted: str) -> str:
    """`wanted`, or `wanted_2`, ...: a name the file neither reads, defines nor imports."""
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    used |= {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)}
    used |= {
        (a.asname or a.name).split(".")[0]
        for n in ast.walk(tree)
        if isinstance(n, ast.Import | ast.ImportFrom)
        for a in n.names
    }
    name, number = wanted, 1
    while name in used:
        number += 1
        name = f"{wanted}_{number}"
    return name


@dataclass(frozen=True)
class PassedIn:
    """`NAME = EXPR` in a compiled function's own body, where EXPR reads nothing of the call's but `self`'s
    attributes (`sigma = next(self.levels)`: a generator advanced, a draw, a read of state): the caller can
    compute it before each call and pass it in, and Dynamo never sees it."""

    def_line: int  # the function's `def`
    line: int
    name: str
    code: str  # EXPR as written
    reads_self: bool


def _assigned_once(function: ast.FunctionDef | ast.AsyncFunctionDef, line: int) -> ast.Assign | None:
    """The one-line `NAME = ...` at `line` of the function's own body, NAME bound nowhere else in it."""
    statement = next((s for s in function.body if s.lineno == line), None)
    if not isinstance(statement, ast.Assign) or statement.lineno != statement.end_lineno:
        return None
    if len(statement.targets) != 1 or not isinstance(statement.targets[0], ast.Name):
        return None
    stores = [n for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
    return statement if sum(n.id == statement.targets[0].id for n in stores) == 1 else None


def passed_in_value(source: str, function_line: int, line: int) -> PassedIn | None:
    tree = _parsed(source)
    function = _function_at(tree, function_line) if tree is not None else None
    if function is None:
        return None
    statement = _assigned_once(function, line)
    if statement is None or not isinstance(statement.targets[0], ast.Name):
        return None
    name, value = statement.targets[0].id, statement.value
    arguments = function.args
    parameters = [a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)]
    if name in parameters or not any(isinstance(n, ast.Call) for n in ast.walk(value)):
        return None
    own = local_names(function)
    read = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
    reads_self = bool(parameters) and parameters[0] == "self" and "self" in read
    if read & own - ({"self"} if reads_self else set()):
        return None  # it reads a value of the call's
    return PassedIn(function.lineno, line, name, ast.get_source_segment(source, value) or "", reads_self)


def called_expression(source: str, site: CallSite) -> str | None:
    """What the call at `site` calls, when it is a plain name or attribute (`model`, `self.net`)."""
    tree = _parsed(source)
    call = _call_of_site(tree, site) if tree is not None else None
    if call is None or not isinstance(call.func, (ast.Name, ast.Attribute)):
        return None
    return ast.get_source_segment(source, call.func)


@dataclass(frozen=True)
class ComprehensionLoop:
    """`outs = [step(x).item() for _ in range(4)]`, a call inside a list comprehension, as the loop it stands for:
    a statement to move after the call goes in the loop's body, after each call, not once after all of them."""

    target: str  # `outs`
    header: str  # `for _ in range(4):`
    element: str  # `step(x).item()`

    def with_after(self, code: str) -> str:
        """The loop, with `code` after each element is appended."""
        body = "\n".join(f"    {line}" for line in code.splitlines())
        return f"{self.target} = []\n{self.header}\n    {self.target}.append({self.element})\n{body}"


def in_comprehension(source: str, site: CallSite) -> bool:
    """The call at `site` stands inside a comprehension or a generator expression (runs once per item)."""
    tree = _parsed(source)
    call = _call_of_site(tree, site) if tree is not None else None
    comprehensions = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
    return (
        tree is not None
        and call is not None
        and any(
            isinstance(node, comprehensions) and any(inner is call for inner in ast.walk(node))
            for node in ast.walk(tree)
        )
    )


def comprehension_loop(source: str, site: CallSite) -> ComprehensionLoop | None:
    """The loop of `NAME = [ELEMENT for TARGET in ITER]` (one `for`, no `if`, TARGET a name its scope uses
    nowhere else) whose element holds the call at `site`."""
    tree = _parsed(source)
    call = _call_of_site(tree, site) if tree is not None else None
    if tree is None or call is None:
        return None
    loops = (_loop_of(tree, node, call, source) for node in ast.walk(tree) if isinstance(node, ast.Assign))
    return next((loop for loop in loops if loop is not None), None)


def _loop_of(tree: ast.Module, node: ast.Assign, call: ast.Call, source: str) -> ComprehensionLoop | None:
    """The loop of the assignment `node`, when it is the comprehension holding `call` that can be one."""
    if not isinstance(node.value, ast.ListComp):
        return None
    comprehension = node.value
    if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name) or len(comprehension.generators) != 1:
        return None
    loop = comprehension.generators[0]
    if loop.ifs or loop.is_async or not any(inner is call for inner in ast.walk(comprehension.elt)):
        return None
    bound = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
    inner = {id(n) for n in ast.walk(comprehension)}
    if any(n.id in bound and id(n) not in inner for n in _scope_names(tree, node)):
        return None  # a loop would leave its variable bound where its scope uses that name
    code = functools.partial(ast.get_source_segment, source)
    header = f"for {code(loop.target)} in {code(loop.iter)}:"
    return ComprehensionLoop(node.targets[0].id, header, code(comprehension.elt) or "")


def _scope_names(tree: ast.Module, statement: ast.stmt) -> list[ast.Name]:
    """The names read or bound in the scope that holds `statement` (the module's or a function's own code, not
    the functions and classes defined in it)."""
    scopes: list[ast.AST] = [
        tree,
        *(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))),
    ]
    holder = [scope for scope in scopes if any(inner is statement for inner in ast.walk(scope))][-1]
    names, todo = [], list(ast.iter_child_nodes(holder))
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Name):
            names.append(node)
        todo.extend(ast.iter_child_nodes(node))
    return names
