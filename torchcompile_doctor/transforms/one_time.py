"""One-time Python work inside compiled code (a config file read, a device or thread-count probe, an import): the
same value on every call, computed once at import time instead, where Dynamo never sees it."""

from __future__ import annotations

import ast
import re

from torchcompile_doctor.model.edits import (
    Edit,
    InsertAfter,
    InsertBefore,
    RemoveStatement,
    ReplaceExpression,
    ReplaceStatement,
)
from torchcompile_doctor.transforms.call_source import local_names
from torchcompile_doctor.transforms.line_code import dotted_name, names_read
from torchcompile_doctor.transforms.site import Site, first_line, top_statement
from torchcompile_doctor.transforms.statements import simple_statement

# calls whose result is the same on every call of a program's run: probes of the machine and reads of its setup
_ONE_TIME_CALLS = frozenset(
    {
        "device_count",
        "is_available",
        "get_device_name",
        "get_device_capability",
        "is_bf16_supported",
        "get_num_threads",
        "cpu_count",
        "getenv",
        "environ.get",
        "read_text",
        "read_bytes",
        "load",
        "loads",
        "safe_load",
        "import_module",
        "find_spec",
        "hasattr",
        "get_world_size",
        "get_rank",
        # the file system read for a switch or a setup file (a flag file, a cache folder, a tool on the PATH)
        "exists",
        "isfile",
        "isdir",
        "is_file",
        "is_dir",
        "access",
        "which",
    }
)


def _one_time(call: ast.Call) -> bool:
    name = dotted_name(call.func) or ""
    return name.rsplit(".", 1)[-1] in _ONE_TIME_CALLS or name.endswith("environ.get")


def _locals(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names a function binds, `self` and `cls` as well (a method's, whatever it names its first parameter)."""
    return local_names(function) | {"self", "cls"}


def _module_names(tree: ast.Module) -> set[str]:
    """The names the module's own statements bind (not those inside its functions and classes)."""
    names: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(statement.name)
        elif isinstance(statement, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in statement.names}
        elif isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.With)):
            names |= {n.id for n in ast.walk(statement) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return names


def hoist_to_module(site: Site) -> tuple[Edit, ...] | str:
    """`config = json.loads(CONFIG.read_text())` (or `import x`) in a compiled function, reading nothing of the
    function's: moved to module level before the function (or its class), where it runs once at import."""
    statement = simple_statement(site)
    function, tree = site.function(), site.tree
    if isinstance(statement, str) or function is None or tree is None:
        return statement if isinstance(statement, str) else "the line is in no function"
    node = statement.node
    top = top_statement(tree, site.line)
    if top is None or top is node:
        return "the line is at module level already"
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return (RemoveStatement(node.lineno), InsertBefore(first_line(top), statement.code))
    why_not = _why_not_hoisted(node, function, tree, site.line)
    return (
        why_not
        if why_not is not None
        else (RemoveStatement(node.lineno), InsertBefore(first_line(top), statement.code))
    )


def _why_not_hoisted(
    node: ast.stmt, function: ast.FunctionDef | ast.AsyncFunctionDef, tree: ast.Module, line: int
) -> str | None:
    """Why the assignment cannot run once at import time instead (None: it can)."""
    if not isinstance(node, ast.Assign) or len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
        return f"line {line} assigns no one name"
    name = node.targets[0].id
    if not any(_one_time(c) for c in ast.walk(node.value) if isinstance(c, ast.Call)):
        return f"line {line} calls nothing known to give the same value on every call"
    read = {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)} & _locals(function)
    if read:
        return f"line {line} reads `{sorted(read)[0]}` of the function's"
    assigned = [n for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
    if sum(n.id == name for n in assigned) > 1 or name in _module_names(tree):
        return f"`{name}` is bound elsewhere too"
    return None


def hoist_probe(site: Site) -> tuple[Edit, ...] | str:
    """`if torch.cuda.device_count() > 1:` in a compiled function -> `DEVICE_COUNT = torch.cuda.device_count()` at
    module level and `if DEVICE_COUNT > 1:`: a probe of the machine, read once."""
    node, tree, function = site.statement(), site.tree, site.function()
    if node is None or tree is None or function is None:
        return "the line is in no function"
    top = top_statement(tree, site.line)
    header = [node.test] if hasattr(node, "test") else [node]
    own = _locals(function)
    probes = [
        c
        for part in header
        for c in ast.walk(part)
        if isinstance(c, ast.Call)
        and _one_time(c)
        and c.lineno == site.line
        and not ({n.id for n in ast.walk(c) if isinstance(n, ast.Name)} & own)
    ]
    if not probes or top is None:
        return f"line {site.line} calls no probe of the machine"
    probe = probes[0]
    code = ast.get_source_segment(site.source, probe) or ""
    name = re.sub(r"(?<!^)(?=[A-Z])", "_", (dotted_name(probe.func) or "value").rsplit(".", 1)[-1]).upper()
    if name in _module_names(tree):
        return f"`{name}` is a module-level name already"
    return (InsertBefore(first_line(top), f"{name} = {code}"), ReplaceExpression(site.line, code, name))


def hoist_to_init(site: Site) -> tuple[Edit, ...] | str:
    """`act = getattr(importlib.import_module(name), fn)` in a module's `forward`, reading only attributes its
    `__init__` sets (and the statements before it that it needs): moved to the end of `__init__`, each name it binds
    made an attribute (`self.act`), read as the attribute in `forward`. The work runs once, when the module is
    built."""
    function, owner = site.function(), site.enclosing_class()
    init = _method(owner, "__init__") if owner is not None else None
    if function is None or owner is None or init is None or function is init:
        return "the line is in no method of a class with an `__init__`"
    moved = _hoisted_statements(function, site.line)
    if isinstance(moved, str):
        return moved
    names = {n.id for s in moved for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    why_not = _why_not_in_init(owner, init, function, moved, names)
    if why_not is not None:
        return why_not
    as_attributes = "\n".join(ast.unparse(_AsAttributes(names).visit(_copy(s))) for s in moved)
    rest = [s for s in function.body if s not in moved and names & names_read(s)]
    return (
        *(RemoveStatement(s.lineno) for s in moved),
        InsertAfter(init.body[-1].lineno, as_attributes),
        *(ReplaceStatement(s.lineno, ast.unparse(_AsAttributes(names).visit(_copy(s)))) for s in rest),
    )


def _method(owner: ast.ClassDef, name: str) -> ast.FunctionDef | None:
    return next((s for s in owner.body if isinstance(s, ast.FunctionDef) and s.name == name), None)


def _copy(statement: ast.stmt) -> ast.stmt:
    copied = ast.parse(ast.unparse(statement)).body[0]
    return copied


class _AsAttributes(ast.NodeTransformer):
    """Each of `names` read or bound as `self.NAME`."""

    def __init__(self, names: set[str]) -> None:
        self.names = names

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if node.id not in self.names:
            return node
        return ast.Attribute(value=ast.Name("self", ast.Load()), attr=node.id, ctx=node.ctx)


def _hoisted_statements(function: ast.FunctionDef | ast.AsyncFunctionDef, line: int) -> list[ast.stmt] | str:
    """The top-level assignment at `line` that does one-time work, with the earlier assignments whose names it
    reads, each reading nothing of the call's but `self`'s attributes and those names (else why not)."""
    body = function.body
    at = next((i for i, s in enumerate(body) if s.lineno <= line <= (s.end_lineno or s.lineno)), None)
    if at is None or not isinstance(body[at], ast.Assign):
        return f"line {line} is no assignment in the method's own body"
    if not any(_one_time(c) for c in ast.walk(body[at]) if isinstance(c, ast.Call)):
        return f"line {line} calls nothing known to give the same value on every call"
    parameters = {a.arg for a in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)}
    needed, moved = names_read(body[at]) & _locals(function), [body[at]]
    for statement in reversed(body[:at]):
        bound = {n.id for n in ast.walk(statement) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        if bound & needed:
            if not isinstance(statement, ast.Assign):
                return f"line {statement.lineno} binds what line {line} reads, and is no assignment"
            moved.insert(0, statement)
            needed = (needed - bound) | (names_read(statement) & _locals(function))
    needed.discard("self")
    if needed:
        own = sorted(needed)[0]
        return f"line {line} reads `{own}`, " + ("a parameter" if own in parameters else "bound elsewhere")
    return moved


def _why_not_in_init(
    owner: ast.ClassDef,
    init: ast.FunctionDef,
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    moved: list[ast.stmt],
    names: set[str],
) -> str | None:
    """Why the statements cannot run at the end of `__init__` instead (None: they can): a name they bind is bound
    again in the method or is an attribute of the class already, or an attribute they read is set outside
    `__init__` (it may change between calls)."""
    stores = [n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
    if any(stores.count(name) > 1 for name in names):
        return "a name it binds is bound again in the method"
    attributes = {n.attr for n in ast.walk(owner) if isinstance(n, ast.Attribute)}
    if names & attributes:
        return f"`self.{sorted(names & attributes)[0]}` is an attribute of the class already"
    read = {n.attr for s in moved for n in ast.walk(s) if isinstance(n, ast.Attribute) and _of_self(n)}
    set_elsewhere = _set_outside(owner, init)
    if read & set_elsewhere:
        return f"`self.{sorted(read & set_elsewhere)[0]}` is set outside `__init__`"
    if isinstance(init.body[-1], ast.Return):
        return "`__init__` ends with a `return`"
    return None


def _set_outside(owner: ast.ClassDef, init: ast.FunctionDef) -> set[str]:
    """The attributes of `self` the class's methods other than `__init__` set."""
    methods = [m for m in owner.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and m is not init]
    return {
        n.attr
        for method in methods
        for n in ast.walk(method)
        if isinstance(n, ast.Attribute) and _of_self(n) and isinstance(n.ctx, ast.Store)
    }


def _of_self(node: ast.Attribute) -> bool:
    return isinstance(node.value, ast.Name) and node.value.id == "self"
