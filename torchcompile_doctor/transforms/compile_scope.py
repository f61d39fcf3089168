"""What is compiled: a compiled function that holds the network and its post-processing (a threshold mask, a
boolean index, NMS: data-dependent work that breaks the graph) split in two, the network compiled and the
post-processing left to run eagerly after it."""

from __future__ import annotations

import ast

from torchcompile_doctor.model.edits import Edit, ReplaceStatement
from torchcompile_doctor.transforms.site import Site


def compile_network_only(site: Site) -> tuple[Edit, ...] | str:
    """```
    @torch.compile                      @torch.compile
    def detect(x, thr):                 def _detect_network(x, thr):
        scores = net(x)          ->         scores = net(x)
        keep = scores > thr                 return scores
        return nms(scores[keep])
                                        def detect(x, thr):
                                            scores = _detect_network(x, thr)
                                            keep = scores > thr
                                            return nms(scores[keep])
    ```
    The statements before the one holding the break make the compiled part; what they bind and the rest reads
    is returned from it. Only a module-level function compiled with a `torch.compile` decorator."""
    function = site.function()
    tree = site.tree
    if function is None or tree is None or function not in tree.body:
        return "the line is not in a module-level function"
    if not any(_is_compile(d) for d in function.decorator_list):
        return f"`{function.name}` is not compiled with a `@torch.compile` decorator"
    at = next((i for i, s in enumerate(function.body) if s.lineno <= site.line <= (s.end_lineno or s.lineno)), None)
    if at is None or at == 0 or _docstring_only(function.body[:at]):
        return "no statement of the network comes before the line"
    head, tail = function.body[:at], function.body[at:]
    if any(isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom)) for s in head for n in ast.walk(s)):
        return "the code before the line returns or yields"
    live = [name for name in _bound(head) if name in _read(tail)]
    if not live:
        return "the post-processing reads nothing the network computes"
    return (ReplaceStatement(function.lineno, _split(site, function, head, tail, live)),)


def _is_compile(decorator: ast.expr) -> bool:
    called = decorator.func if isinstance(decorator, ast.Call) else decorator
    return ast.unparse(called) in ("torch.compile", "compile")


def _docstring_only(statements: list[ast.stmt]) -> bool:
    return all(isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) for s in statements)


def _bound(statements: list[ast.stmt]) -> list[str]:
    """The names the statements bind, in order."""
    names = [n.id for s in statements for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
    return list(dict.fromkeys(names))


def _read(statements: list[ast.stmt]) -> set[str]:
    return {n.id for s in statements for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _split(
    site: Site,
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    head: list[ast.stmt],
    tail: list[ast.stmt],
    live: list[str],
) -> str:
    lines = site.source.splitlines()
    decorators = [f"@{ast.get_source_segment(site.source, d)}" for d in function.decorator_list]
    signature = _signature(lines, function)
    body_indent = " " * function.body[0].col_offset
    network = f"_{function.name}_network"
    returned = ", ".join(live)
    head_code = _lines(lines, head)
    tail_code = _lines(lines, tail)
    call = f"{body_indent}{returned} = {network}({_arguments(function)})"
    keyword = "async def" if isinstance(function, ast.AsyncFunctionDef) else "def"
    return "\n".join(
        [
            *decorators,
            f"{keyword} {network}({signature}):",
            head_code,
            f"{body_indent}return {returned}",
            "",
            "",
            f"{keyword} {function.name}({signature}):",
            call,
            tail_code,
        ]
    ).replace("\n" + " " * function.col_offset, "\n")


def _signature(lines: list[str], function: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """The parameters as written (`x, thr: float = 0.5`): the text between the def's parentheses."""
    header = "\n".join(lines[function.lineno - 1 : function.body[0].lineno - 1])
    start = header.index("(", header.index(function.name))
    depth = 0
    for index in range(start, len(header)):
        depth += {"(": 1, ")": -1}.get(header[index], 0)
        if depth == 0:
            return header[start + 1 : index]
    return ""


def _lines(lines: list[str], statements: list[ast.stmt]) -> str:
    first, last = statements[0].lineno, statements[-1].end_lineno or statements[-1].lineno
    return "\n".join(lines[first - 1 : last])


def _arguments(function: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """The call passing each parameter on: positional ones by position, keyword-only by keyword."""
    args = function.args
    passed = [a.arg for a in [*args.posonlyargs, *args.args]]
    passed += [f"*{args.vararg.arg}"] if args.vararg else []
    passed += [f"{a.arg}={a.arg}" for a in args.kwonlyargs]
    passed += [f"**{args.kwarg.arg}"] if args.kwarg else []
    return ", ".join(passed)
