"""Before/after snippets built from the user's own source line. A rule names its transform;
each transform takes the line's code (with its indentation, without its trailing comment) and the
finding's facts, and returns the rewritten code, or None when the line does not have the shape it
rewrites. The user's comment is put back on their line untouched; the doctor's own notes go on a
comment line of their own. An "after" must not break the graph where the "before" did."""

from __future__ import annotations

import ast
import builtins
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass

from torchcompile_doctor.events.guard_failures import is_carried_value
from torchcompile_doctor.rules.facts import Facts


@dataclass(frozen=True, kw_only=True)
class RewriteFacts(Facts):
    """The facts a rewrite of the user's line reads (a recompile's): the variable that changed, its dimension,
    the module attribute, the value the first cache entry was compiled for, the optimizer hyperparameter."""

    variable: str | None = None
    dim: int | str | None = None
    attribute: str | None = None
    first_value: str | None = None
    hyperparameter: str | None = None
    passed: str | None = None  # what the user's call line passes for the variable (`torch.stack(values)`, `k`)
    marked: str | None = None  # what `mark_dynamic` gets: that, or the name it is bound to first
    mark_call: str | None = None  # torch's marking to write (MARK_DYNAMIC unless said)
    tied: tuple[tuple[str, str, int], ...] | None = None  # inputs of the same length: (passed, marked, dim)
    tied_hidden: bool | None = None  # an input tied to it that the call line does not show: no rewrite
    none_argument: str | None = None  # an argument the user's call left out, used while None in the library
    none_argument_value: str | None = None  # what the call can pass for it, meaning what the library fills in
    branched_argument: str | None = None  # an argument the user's call passes that the library branches on


@dataclass(frozen=True)
class Transform:
    """A rewrite of the user's line: the code in, the rewritten code out (None: not that shape of line)."""

    rewrite: Callable[[str, RewriteFacts], str | None]
    reads_facts: bool = False  # it needs a detector whose facts are RewriteFacts


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


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def guard_is_compiling(line: str, facts: RewriteFacts) -> str | None:
    pad = _indent(line)
    return f"{pad}if not torch.compiler.is_compiling():\n{pad}    {line.strip()}"


def _without_call(line: str, call: str, wrappers: tuple[str, ...]) -> str:
    """`line` with every `call` (`.item()`) removed, and with the builtin conversion wrapped around it
    (`int(h.norm().item())` -> `h.norm()`): the conversion of a tensor to a Python number breaks the graph
    as `.item()` does."""
    while (start := line.find(call)) != -1:
        end = start + len(call)
        opening = _opening_paren(line, end) if line[end : end + 1] == ")" else None
        wrapper = re.search(rf"\b({'|'.join(wrappers)})\($", line[: opening + 1]) if opening is not None else None
        if opening is not None and wrapper is not None:
            line = line[: wrapper.start()] + line[opening + 1 : start] + line[end + 1 :]
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


def drop_item(line: str, facts: RewriteFacts) -> str | None:
    if ".item()" not in line:
        return None
    note = f"{_indent(line)}# a 0-d tensor: no graph break; call .item() after the compiled step"
    return f"{note}\n{_without_call(line, '.item()', ('int', 'float', 'bool'))}"


def drop_tolist(line: str, facts: RewriteFacts) -> str | None:
    if ".tolist()" not in line:
        return None
    note = f"{_indent(line)}# keep it a tensor inside the compiled region"
    return f"{note}\n{_without_call(line, '.tolist()', ('list', 'tuple'))}"


def branchless_where(line: str, facts: RewriteFacts) -> str | None:
    match = re.match(r"^(\s*)(?:el)?if (?P<cond>.+):\s*$", line)
    if match is None:
        return None
    pad = match.group(1)
    condition = _without_call(match["cond"].strip(), ".item()", ("int", "float", "bool"))  # a tensor condition
    return (
        f"{pad}# compute both branches, select with the tensor condition (no Python bool needed)\n"
        f"{pad}out = torch.where({condition}, <value if true>, <value if false>)\n"
        f"{pad}# or, for branches that differ in work: torch.cond(pred, true_fn, false_fn, (x,))"
    )


def move_outside(line: str, facts: RewriteFacts) -> str | None:
    return f"# in the caller, after the compiled function returns:\n{line.strip()}"


def module_counter_buffer(line: str, facts: RewriteFacts) -> str | None:
    attr = facts.attribute
    if not attr:
        return None
    init = f'# __init__: self.register_buffer("{attr}", torch.zeros((), dtype=torch.long))'
    if re.search(rf"self\.{re.escape(attr)}\s*\+=\s*1", line):
        return f"{init}\nself.{attr}.add_(1)  # a tensor buffer is graph data, not a guarded constant"
    return f"{init}  # then read it as a tensor here\n{line.strip()}"


# NumPy functions whose torch twin has the same name and arguments; others need a human.
_SAME_IN_TORCH = {
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
_RENAMED_IN_TORCH = {"clip": "clamp", "concatenate": "cat", "power": "pow", "absolute": "abs"}


def numpy_to_torch(line: str, facts: RewriteFacts) -> str | None:
    after = re.sub(r"\.numpy\(\)", "", line)
    # np.digitize(x, bins) == torch.bucketize(x, bins, right=True)
    after = re.sub(
        r"\bnp\.digitize\((?P<x>[^,()]+),\s*(?P<bins>[^,()]+)\)",
        r"torch.bucketize(\g<x>, torch.as_tensor(\g<bins>), right=True)",
        after,
    )
    unknown = False

    def swap(match: re.Match[str]) -> str:
        nonlocal unknown
        name = match.group(1)
        if name in _SAME_IN_TORCH:
            return f"torch.{name}("
        if name in _RENAMED_IN_TORCH:
            return f"torch.{_RENAMED_IN_TORCH[name]}("
        unknown = True
        return match.group(0)

    after = re.sub(r"\bnp\.(\w+)\(", swap, after)
    if unknown or after == line:
        return None
    return f"{_indent(line)}# the torch equivalent stays in the graph\n{after}"


def _replace_argument(line: str, variable: str, replacement: str) -> str | None:
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
# what a user can mark or cast where it stands: `k`, `batch.x`, `inputs['input_ids']`; anything else (a call,
# an operation) is a new value made at the call
_HELD = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*|\[(?:'[^']*'|\"[^\"]*\"|\d+)\])*")


def marked_name(passed: str, variable: str | None) -> str:
    """What `mark_dynamic` gets: what the user holds (`k`, `data.x`), or the name the value the call makes
    (`torch.stack(values)`) is bound to first (`values_tensor`)."""
    return passed if _HELD.fullmatch(passed) else f"{variable or 'value'}_tensor"


def _passed(facts: RewriteFacts) -> str | None:
    """What the user's call passes for the finding's variable (the analysis read it from the call line), else
    the variable itself."""
    return facts.passed or facts.variable


def cast_at_call_site(line: str, facts: RewriteFacts) -> str | None:
    var = _passed(facts)
    if not var:
        return None
    dtype = facts.first_value or "float32"
    return _replace_argument(line, var, f"{var}.to(torch.{dtype})")


def mark_dynamic(line: str, facts: RewriteFacts) -> str | None:
    """`torch._dynamo.mark_dynamic(k, 0)` before the call that passes `k`; where the call passes a value it
    makes (`torch.stack(values)`), that value bound to a name first, as `mark_dynamic` needs the tensor itself
    (on the user's `values`, a list, it raises AttributeError). The inputs whose length torch ties to it
    (`facts.tied`: (passed, name, dim)) are marked with it: one marked alone raises ConstraintViolationError."""
    var, dim = _passed(facts), facts.dim if facts.dim is not None else 0
    if not var or facts.tied_hidden:
        return None
    marks = [(var, marked_name(var, facts.variable), dim), *(facts.tied or ())]
    pad, call = _indent(line), line.rstrip()
    binds: list[str] = []
    lines: list[str] = []
    for passed, name, mark_dim in marks:
        if _replace_argument(call, passed, passed) is None:
            return None  # the line does not pass it by this text
        if name != passed:
            if not name.isidentifier():
                return None
            binds.append(f"{pad}{name} = {passed}")
            call = _replace_argument(call, passed, name) or call
        note = "  # before the first call" if not lines else ""
        lines.append(f"{pad}{facts.mark_call or MARK_DYNAMIC}({name}, {mark_dim}){note}")
    return "\n".join([*binds, *lines, call])


def tensor_argument(line: str, facts: RewriteFacts) -> str | None:
    var = _passed(facts)
    if not var or var.startswith("self.") or is_carried_value(var):  # an attribute, or a value torch carried
        return None
    return _replace_argument(line, var, f"torch.tensor({var})")


_HYPERPARAMETER = re.compile(r"\b(?P<name>lr|weight_decay|momentum)\s*=\s*(?P<value>[^,()]+(?:\([^()]*\))?)")


def tensor_hyperparameter(line: str, facts: RewriteFacts) -> str | None:
    """`torch.optim.Adam(params, lr=lr)` -> `torch.optim.Adam(params, lr=torch.tensor(lr))` for the
    hyperparameter that recompiled (`facts.hyperparameter`): a recompile rule whose fix is not at the guard's
    line, but where the user creates the optimizer."""
    wanted = facts.hyperparameter or "lr"
    for match in _HYPERPARAMETER.finditer(line):
        value = match["value"].strip()
        if match["name"] != wanted or value.startswith("torch.tensor("):
            continue
        start = match.span("value")[0]
        return f"{line[:start]}torch.tensor({value}){line[start + len(match['value'].rstrip()) :]}"
    return None


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


def pass_left_out_argument(line: str, facts: RewriteFacts) -> str | None:
    """`out = model(**inputs)` -> `out = model(**inputs, attention_mask=torch.ones_like(inputs['input_ids']))`:
    the argument the call left out, passed with the value the library fills in (facts.none_argument_value)."""
    found = call_on_line(line) if facts.none_argument and facts.none_argument_value else None
    if found is None or any(k.arg == facts.none_argument for k in found[1].keywords):
        return None
    code, call = found[0].encode(), found[1]
    at = (call.end_col_offset or 0) - 1  # the call's `)`
    separator = ", " if call.args or call.keywords else ""
    passed = f"{separator}{facts.none_argument}={facts.none_argument_value}".encode()
    return _indent(line) + (code[:at] + passed + code[at:]).decode()


def drop_passed_argument(line: str, facts: RewriteFacts) -> str | None:
    """`out = model(ids, attention_mask=mask)` -> `out = model(ids)`: the keyword the library branches on left out
    of the user's call (facts.branched_argument), so that the library's default applies."""
    found = call_on_line(line) if facts.branched_argument else None
    keyword = next((k for k in found[1].keywords if k.arg == facts.branched_argument), None) if found else None
    if found is None or keyword is None or keyword.end_col_offset is None:
        return None
    text = found[0].encode()
    start, end = keyword.col_offset, keyword.end_col_offset
    before = text[:start].rstrip()
    if before.endswith(b","):  # `f(x, k=v)`: the comma before it goes with it
        return _indent(line) + (before[:-1].rstrip() + text[end:]).decode()
    after = text[end:]  # `f(k=v, x)` or `f(k=v)`: the comma and spaces after it
    end += len(after) - len(after.lstrip(b", ")) if after.lstrip().startswith(b",") else 0
    return _indent(line) + (text[:start] + text[end:]).decode()


TRANSFORMS: dict[str, Transform] = {
    "guard_is_compiling": Transform(guard_is_compiling),
    "drop_item": Transform(drop_item),
    "drop_tolist": Transform(drop_tolist),
    "branchless_where": Transform(branchless_where),
    "move_outside": Transform(move_outside),
    "numpy_to_torch": Transform(numpy_to_torch),
    "module_counter_buffer": Transform(module_counter_buffer, reads_facts=True),
    "cast_at_call_site": Transform(cast_at_call_site, reads_facts=True),
    "mark_dynamic": Transform(mark_dynamic, reads_facts=True),
    "tensor_argument": Transform(tensor_argument, reads_facts=True),
    "tensor_hyperparameter": Transform(tensor_hyperparameter, reads_facts=True),
    "pass_left_out_argument": Transform(pass_left_out_argument, reads_facts=True),
    "drop_passed_argument": Transform(drop_passed_argument, reads_facts=True),
}


def _with_comment(after: str, comment: str) -> str:
    """The user's comment back on the rewritten line: the last line of `after` that is code."""
    lines = after.split("\n")
    code_lines = [i for i, text in enumerate(lines) if text.strip() and not text.strip().startswith("#")]
    if comment and code_lines:
        lines[code_lines[-1]] += comment
    return "\n".join(lines)


def apply(transform: str | None, line: str | None, facts: Facts) -> tuple[str | None, str | None]:
    """(before, after) for a finding, or (None, None) when there is nothing to rewrite."""
    if transform is None or not line:
        return None, None
    code = code_only(line)
    if not code.strip():
        return None, None
    after = TRANSFORMS[transform].rewrite(code, facts if isinstance(facts, RewriteFacts) else RewriteFacts())
    if not after:
        return None, None
    return line.strip(), textwrap.dedent(_with_comment(after, line[len(code) :])).strip("\n")
