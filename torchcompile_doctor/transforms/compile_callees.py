"""A compiled function that breaks on what must run eagerly around its network (`requires_grad_()` on an
intermediate, `torch.autograd.grad`: a gradient penalty) left eager, and the modules it calls compiled instead:
the network's forward is the graph, the autograd calls around it run as Python. Read from the file's syntax
tree; nothing here runs the code."""

from __future__ import annotations

import ast

from torchcompile_doctor.model.edits import Edit, ReplaceStatement
from torchcompile_doctor.transforms.call_source import free_name_in
from torchcompile_doctor.transforms.line_code import is_compile
from torchcompile_doctor.transforms.site import Site

_Function = ast.FunctionDef | ast.AsyncFunctionDef


def _module_instances(tree: ast.Module, before: int) -> set[str]:
    """Module-level names bound, before line `before`, to an instance of a class (`critic = nn.Sequential(...)`,
    `net = Net().eval()`): a call whose callee's last name is capitalized, maybe followed by method calls."""
    found = set()
    for statement in tree.body:
        if not isinstance(statement, ast.Assign) or statement.lineno >= before or len(statement.targets) != 1:
            continue
        target, value = statement.targets[0], statement.value
        while (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and isinstance(value.func.value, ast.Call)
        ):
            value = value.func.value  # `Net().eval().to(device)`: the instance made first
        if isinstance(target, ast.Name) and isinstance(value, ast.Call):
            callee = ast.unparse(value.func).rpartition(".")[2]
            if callee[:1].isupper():
                found.add(target.id)
    return found


# what a gradient penalty or a saliency map does around the network, which must run where autograd sees it
_AUTOGRAD_CALLS = frozenset({"torch.autograd.grad", "autograd.grad", "requires_grad_"})


def _autograd_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    called = ast.unparse(node.func)
    return called in _AUTOGRAD_CALLS or called.rpartition(".")[2] == "requires_grad_"


def compile_called_modules(site: Site) -> tuple[Edit, ...] | str:
    """```
    critic = nn.Sequential(...)                 critic = nn.Sequential(...)
                                                compiled_critic = torch.compile(critic, backend="eager")
    @torch.compile(backend="eager")      ->
    def penalty(real, fake, alpha):             def penalty(real, fake, alpha):
        x = (alpha * real).requires_grad_()         x = (alpha * real).requires_grad_()
        (g,) = torch.autograd.grad(critic(x)...)    (g,) = torch.autograd.grad(compiled_critic(x)...)
    ```
    Only a module-level function compiled by a `torch.compile` decorator that calls a module the file makes at
    module level before it: the decorator's options go to the modules' compile."""
    function, tree = site.function(), site.tree
    if function is None or tree is None or function not in tree.body:
        return "the line is not in a module-level function"
    decorators = [d for d in function.decorator_list if is_compile(d)]
    if len(decorators) != 1 or len(function.decorator_list) != 1:
        return f"`{function.name}` is not compiled by one `@torch.compile` decorator alone"
    if not any(_autograd_call(n) for n in ast.walk(function)):
        return f"`{function.name}` computes no gradient of its own (`torch.autograd.grad`, `requires_grad_`)"
    first = decorators[0].lineno
    modules = _module_instances(tree, first)
    called = [
        n.func.id
        for n in ast.walk(function)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in modules
    ]
    if not called:
        return f"`{function.name}` calls no module the file makes before it"
    decorator = decorators[0]
    options = (
        ", ".join(ast.get_source_segment(site.source, k) or "" for k in decorator.keywords)
        if isinstance(decorator, ast.Call)
        else ""
    )
    lines = site.source.splitlines()
    text = "\n".join(lines[function.lineno - 1 : function.end_lineno])
    compiled: list[str] = []
    for module in dict.fromkeys(called):
        name = free_name_in(tree, f"compiled_{module}")
        compiled.append(f"{name} = torch.compile({module}{', ' + options if options else ''})")
        text = _renamed_calls(text, module, name)
    return (ReplaceStatement(function.lineno, "\n".join([*compiled, "", "", text])),)


def _renamed_calls(text: str, old: str, new: str) -> str:
    """Every call `old(` in the function's text made `new(` (whole names only)."""
    tree = ast.parse(text)
    starts = sorted(
        (
            (n.func.lineno, n.func.col_offset)
            for n in ast.walk(tree)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == old
        ),
        reverse=True,
    )
    lines = text.split("\n")
    for line, column in starts:
        encoded = lines[line - 1].encode()
        lines[line - 1] = (encoded[:column] + new.encode() + encoded[column + len(old) :]).decode()
    return "\n".join(lines)
