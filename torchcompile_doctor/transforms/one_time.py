"""One-time Python work inside compiled code (a config file read, a device or thread-count probe, an import): the
same value on every call, computed once at import time instead, where Dynamo never sees it."""

from __future__ import annotations

import ast
import re

from torchcompile_doctor.model.edits import Edit, InsertBefore, RemoveStatement, ReplaceExpression
from torchcompile_doctor.transforms.line_code import dotted_name
from torchcompile_doctor.transforms.site import Site
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
    }
)


def _one_time(call: ast.Call) -> bool:
    name = dotted_name(call.func) or ""
    return name.rsplit(".", 1)[-1] in _ONE_TIME_CALLS or name.endswith("environ.get")


def _locals(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names a function binds: its parameters and every name it assigns."""
    args = function.args
    names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    names |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    names |= {n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return names | {"self", "cls"}


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


def _top_statement(tree: ast.Module, line: int) -> ast.stmt | None:
    """The module-level statement (a def or class) holding the line: new module-level code goes before it."""
    return next((s for s in tree.body if s.lineno <= line <= (s.end_lineno or s.lineno)), None)


def _first_line(statement: ast.stmt) -> int:
    decorators: list[ast.expr] = getattr(statement, "decorator_list", [])
    return min([statement.lineno, *(d.lineno for d in decorators)])


def hoist_to_module(site: Site) -> tuple[Edit, ...] | str:
    """`config = json.loads(CONFIG.read_text())` (or `import x`) in a compiled function, reading nothing of the
    function's: moved to module level before the function (or its class), where it runs once at import."""
    statement = simple_statement(site)
    function, tree = site.function(), site.tree
    if isinstance(statement, str) or function is None or tree is None:
        return statement if isinstance(statement, str) else "the line is in no function"
    node = statement.node
    top = _top_statement(tree, site.line)
    if top is None or top is node:
        return "the line is at module level already"
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return (RemoveStatement(node.lineno), InsertBefore(_first_line(top), statement.code))
    why_not = _why_not_hoisted(node, function, tree, site.line)
    return (
        why_not
        if why_not is not None
        else (RemoveStatement(node.lineno), InsertBefore(_first_line(top), statement.code))
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
    top = _top_statement(tree, site.line)
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
    return (InsertBefore(_first_line(top), f"{name} = {code}"), ReplaceExpression(site.line, code, name))
