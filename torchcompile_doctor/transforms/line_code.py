"""Readers of a line of the user's code, as text (its code without its comment, the call it makes) and the
line-level rewrites the transforms make of it (a call taken out, an argument renamed). Nothing here runs the code."""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Mapping

from torchcompile_doctor.transforms.site import SiteFacts


def code_only(source: str) -> str:
    """A source line without its trailing comment (`x = f(y)  # why` -> `x = f(y)`): prose quotes the code,
    the user's comment stays theirs. A `#` inside a string literal is code."""
    quote = ""
    index = 0
    while index < len(source):
        char = source[index]
        if quote:
            if char == "\\":
                index += 1
            elif source.startswith(quote, index):
                index += len(quote) - 1
                quote = ""
        elif char in "'\"":
            triple = source[index : index + 3]
            quote = triple if triple in ("'''", '"""') else char
            index += len(quote) - 1
        elif char == "#":
            return source[:index].rstrip()
        index += 1
    return source.rstrip()


def indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def without_call(line: str, call: str, conversions: Mapping[str, str]) -> str:
    """`line` with every `call` (`.item()`) removed, and a builtin conversion around it (`int(...)`, a key of
    `conversions`) made the tensor method that keeps its value (`int(h.norm().item())` -> `h.norm().long()`, which
    truncates as `int` does; "": the tensor alone): the conversion of a tensor to a Python number breaks the graph
    as `.item()` does."""
    while (start := line.find(call)) != -1:
        end = start + len(call)
        opening = _opening_paren(line, end) if line[end : end + 1] == ")" else None
        wrapper = re.search(rf"\b({'|'.join(conversions)})\($", line[: opening + 1]) if opening is not None else None
        if opening is not None and wrapper is not None:
            kept = conversions[wrapper.group(1)]
            line = line[: wrapper.start()] + line[opening + 1 : start] + kept + line[end + 1 :]
        else:
            line = line[:start] + line[end:]
    return line


def _opening_paren(line: str, closing: int) -> int | None:
    """The index of the `(` that the `)` at `closing` closes."""
    depth = 0
    for index in range(closing, -1, -1):
        depth += {")": 1, "(": -1}.get(line[index], 0)
        if depth == 0:
            return index
    return None


# NumPy functions whose torch twin has the same name and arguments; others need a human.
SAME_IN_TORCH = {
    "abs",
    "exp",
    "log",
    "sqrt",
    "sin",
    "cos",
    "tanh",
    "maximum",
    "minimum",
    "where",
    "sum",
    "mean",
    "std",
    "max",
    "min",
    "argmax",
    "argmin",
    "stack",
    "sort",
    "cumsum",
    "prod",
    "sign",
    "floor",
    "ceil",
    "round",
}
RENAMED_IN_TORCH = {"clip": "clamp", "concatenate": "cat", "power": "pow", "absolute": "abs"}


def replace_argument(line: str, variable: str, replacement: str) -> str | None:
    """`f(x, step)` -> `f(x, torch.tensor(step))`, when `variable` (a name, or the expression the line passes)
    is passed by that text."""
    pattern = rf"(?<![\w.]){re.escape(variable)}(?![\w(])"
    if "(" not in line or not re.search(pattern, line.split("(", 1)[1]):
        return None
    head, tail = line.split("(", 1)
    return head + "(" + re.sub(pattern, lambda _: replacement, tail)


MARK_DYNAMIC = "torch._dynamo.mark_dynamic"
# a dimension already dynamic that torch bounded to a range: torch's own hint (`torch._dynamo.mark_unbacked` is
# no attribute of torch._dynamo on 2.13)
MARK_UNBACKED = "torch._dynamo.decorators.mark_unbacked"
# sizes torch specializes whatever the marking (its 0/1 specialization): `mark_dynamic` on a dimension first seen
# with one of these does nothing (measured: a history grown from one row by `torch.cat`, 1 recompile with it, 0
# with `mark_unbacked`)
SPECIALIZED_SIZES = frozenset({"0", "1"})
# what a user can mark or cast where it stands: `k`, `batch.x`, `inputs['input_ids']`; anything else (a call,
# an operation) is a new value made at the call
_HELD = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*|\[(?:'[^']*'|\"[^\"]*\"|\d+)\])*")


def marked_name(passed: str, variable: str | None) -> str:
    """What `mark_dynamic` gets: what the user holds (`k`, `data.x`), or the name the value the call makes
    (`torch.stack(values)`) is bound to first (`values_tensor`)."""
    return passed if _HELD.fullmatch(passed) else f"{variable or 'value'}_tensor"


def passed_value(facts: SiteFacts) -> str | None:
    """What the user's call passes for the finding's variable (the analysis read it from the call line), else
    the variable itself."""
    return facts.passed or facts.variable


def call_on_line(line: str) -> tuple[str, ast.Call] | None:
    """(the line's code, stripped, without its comment; the call it makes into the user's or a library's code):
    the outermost call that is no builtin's and no torch function's (`out = model(**inputs)`, `print(model(x))`).
    Offsets in the call count bytes of that code. None for a line that does not parse alone."""
    code = code_only(line).strip()
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and not _is_builtin(node.func) and not is_torch_function(node.func):
            return code, node
    return None


def _is_builtin(func: ast.expr) -> bool:
    return isinstance(func, ast.Name) and func.id in dir(builtins)


def is_torch_function(func: ast.expr) -> bool:
    """`torch.stack`, `F.relu`, `nn.Linear`, `np.sum`, `math.sqrt`: a call no model's code is behind."""
    while isinstance(func, ast.Attribute):
        func = func.value
    return isinstance(func, ast.Name) and func.id in ("torch", "F", "nn", "np", "math")


def dotted_name(func: ast.expr) -> str | None:
    """`model.generate` for the call's callee, None where it is no dotted name (`fns[0]`, `make()`)."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        owner = dotted_name(func.value)
        return f"{owner}.{func.attr}" if owner else None
    return None


def names_read(node: ast.AST) -> set[str]:
    """The plain names the code reads."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def names_bound(node: ast.AST) -> set[str]:
    """The plain names the code assigns (not a function's parameters: call_source.local_names has those too)."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def is_compile(node: ast.expr) -> bool:
    """`torch.compile` or `torch.compile(...)` (`compile` where it was imported by name): a decorator, or a call."""
    called = node.func if isinstance(node, ast.Call) else node
    return dotted_name(called) in ("torch.compile", "compile")


def drop_keyword(code: str, argument: str) -> str | None:
    """`out = model(ids, attention_mask=mask)` -> `out = model(ids)`: the keyword left out of the line's call
    (None: the call does not pass it)."""
    found = call_on_line(code)
    keyword = next((k for k in found[1].keywords if k.arg == argument), None) if found else None
    if found is None or keyword is None or keyword.end_col_offset is None:
        return None
    text = found[0].encode()
    start, end = keyword.col_offset, keyword.end_col_offset
    before = text[:start].rstrip()
    if before.endswith(b","):  # `f(x, k=v)`: the comma before it goes with it
        return (before[:-1].rstrip() + text[end:]).decode()
    after = text[end:]  # `f(k=v, x)` or `f(k=v)`: the comma and spaces after it
    end += len(after) - len(after.lstrip(b", ")) if after.lstrip().startswith(b",") else 0
    return (text[:start] + text[end:]).decode()


def python_path(path: str, root: str = "model") -> str:
    """`1.layers` -> `model[1].layers`: a module path as Python code (numbered children are indexed)."""
    return root + "".join(f"[{part}]" if part.isdecimal() else f".{part}" for part in path.split(".") if part)
