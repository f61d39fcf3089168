"""What is compiled: a compiled function that holds the network and its post-processing (a threshold mask, a
boolean index, NMS: data-dependent work that breaks the graph) split in two, the network compiled and the
post-processing left to run eagerly after it."""

from __future__ import annotations

import ast
import re

from torchcompile_doctor.model.edits import Edit, ReplaceStatement
from torchcompile_doctor.transforms.call_source import free_name
from torchcompile_doctor.transforms.line_code import is_compile
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
    if not any(is_compile(d) for d in function.decorator_list):
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


def compile_region(site: Site) -> tuple[Edit, ...] | str:
    """Only the tensor work of a function compiled by decorator compiled; the Python work around it left eager:
    ```
    @torch.compile                      @torch.compile
    def step(x, y):                     def _step_compiled(x, y):
        opt.zero_grad()                     loss = loss_fn(model(x), y)
        loss = loss_fn(model(x), y)  ->     return loss
        loss.backward()
        opt.step()                      def step(x, y):
        return loss                         opt.zero_grad()
                                            loss = _step_compiled(x, y)
                                            loss.backward()
                                            opt.step()
                                            return loss
    ```
    At a break inside the function (`loss.backward()`, `torch.save(...)`), the compiled region is the run of
    assignments just before it, after an eager statement (a whole head is `compile_network_only`'s). At a
    recompile on a non-tensor parameter (`sentences[0]`: strings guarded as constants), it is what follows the
    last statement reading that parameter (the tokenization stays eager, the network compiled)."""
    tree = site.tree
    function = _decorated_function(tree, site.line) if tree is not None else None
    if function is None:
        return "the line is not in a module-level function compiled with a `@torch.compile` decorator"
    body = function.body
    inside = next((i for i, s in enumerate(body) if s.lineno <= site.line <= (s.end_lineno or s.lineno)), None)
    parameters = [a.arg for a in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)]
    if site.facts.variable is not None:  # a recompile: its guard names what the tensor part must not read
        region = _region_after(body, site.facts.variable, parameters)
    elif inside is not None:  # a break inside the function
        region = _region_before(body, inside)
    else:
        return "the line is the function's header, and no recompile names a variable"
    if isinstance(region, str):
        return region
    start, end = region
    if any(isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom)) for s in body[start:end][:-1] for n in ast.walk(s)):
        return "the region returns or yields before its end"
    return (ReplaceStatement(function.lineno, _extracted(site, function, start, end)),)


def _decorated_function(tree: ast.Module, line: int) -> ast.FunctionDef | None:
    """The module-level function compiled by a `@torch.compile` decorator whose lines (decorators too) hold `line`."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and any(is_compile(d) for d in node.decorator_list):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            if first <= line <= (node.end_lineno or node.lineno):
                return node
    return None


def _region_before(body: list[ast.stmt], at: int) -> tuple[int, int] | str:
    """The run of assignments just before the statement at `at`, after an eager statement."""
    start = at
    while start > 0 and isinstance(body[start - 1], (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        start -= 1
    if start == at:
        return "no assignment comes just before the line"
    if start == 0 or _docstring_only(body[:start]):
        return "nothing eager comes before the assignments (the network and post-processing split covers it)"
    return start, at


def _region_after(body: list[ast.stmt], variable: str | None, parameters: list[str]) -> tuple[int, int] | str:
    """What follows the last statement that reads the parameter the recompile's guard names (`sentences[0]`)."""
    name = re.match(r"[A-Za-z_]\w*", variable or "")
    if name is None or name.group(0) not in parameters:
        return "the recompile names no parameter of the function"
    reading = [i for i, s in enumerate(body) if name.group(0) in _read([s])]
    if not reading:
        return f"no statement of the function reads `{name.group(0)}`"
    start = reading[-1] + 1
    if start >= len(body):
        return f"the function's last statement reads `{name.group(0)}`"
    return start, len(body)


def _extracted(site: Site, function: ast.FunctionDef, start: int, end: int) -> str:
    """The function split in two: `_NAME_compiled` (the decorators, the region) and NAME (the rest, eager,
    calling it)."""
    lines = site.source.splitlines()
    body = function.body
    before, region, after = body[:start], body[start:end], body[end:]
    parameters = [a.arg for a in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)]
    available = [*parameters, *_bound(before)]
    inputs = [name for name in dict.fromkeys(available) if name in _read(region)]
    returns = isinstance(region[-1], ast.Return)
    outputs = [name for name in _bound(region) if name in _read(after)]
    compiled = free_name(site.source, f"_{function.name}_compiled")
    indent = " " * body[0].col_offset
    call = f"{compiled}({', '.join(inputs)})"
    if returns:
        handoff = [f"{indent}return {call}"]
    elif outputs:
        handoff = [f"{indent}{', '.join(outputs)} = {call}"]
    else:
        handoff = [f"{indent}{call}"]
    region_code = [_lines(lines, region)] + ([] if returns or not outputs else [f"{indent}return {', '.join(outputs)}"])
    parts = [
        *(f"@{ast.get_source_segment(site.source, d)}" for d in function.decorator_list),
        f"def {compiled}({', '.join(inputs)}):",
        *region_code,
        "",
        "",
        f"def {function.name}({_signature(lines, function)}):",
        *([_lines(lines, before)] if before else []),
        *handoff,
        *([_lines(lines, after)] if after else []),
    ]
    return "\n".join(parts).replace("\n" + " " * function.col_offset, "\n")
