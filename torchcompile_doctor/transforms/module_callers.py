"""The names a file calls a module of its own class by: the instances it makes (`model = Net()`, `model =
Net(cfg).eval()`) and the names bound to their compiled wrappers (`cmodel = torch.compile(model)`, `cmodel =
torch.compile(Net())`, `model.compile()`), each with the instance whose attributes a caller reaches through it.
Shared by the fixes that edit the lines calling a compiled module (timing.py, growing.py, loops.py). Read from the
file's syntax tree, every scope alike; nothing here runs the code."""

from __future__ import annotations

import ast
from collections.abc import Collection

from torchcompile_doctor.transforms.line_code import dotted_name, is_compile

# nn.Module methods that return the module itself: `Net().eval()` is still the instance made
_RETURNS_MODULE = frozenset(
    {"to", "cuda", "cpu", "xpu", "type", "float", "double", "half", "bfloat16", "eval", "train", "requires_grad_"}
    | {"apply", "to_empty", "share_memory"}
)


def makes_instance(value: ast.expr, class_name: str) -> bool:
    """`Net(...)`, or the instance it makes passed through methods that return it (`Net(cfg).to(device).eval()`)."""
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _RETURNS_MODULE:
        value = value.func.value
    return isinstance(value, ast.Call) and dotted_name(value.func) == class_name


def _name_bindings(tree: ast.Module) -> list[tuple[str, ast.expr]]:
    """What the file binds to plain names (`model = Net()`, `cmodel = torch.compile(model)`), in order."""
    return [
        (node.targets[0].id, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
    ]


def instances_of(tree: ast.Module, class_name: str) -> set[str]:
    """The names the file binds to an instance of the class (`model = Net().eval()`)."""
    return {name for name, value in _name_bindings(tree) if makes_instance(value, class_name)}


def compiled_module_callers(tree: ast.Module, class_name: str) -> dict[str, str]:
    """By each name the compiled module of the class is called by, the instance whose attributes the caller reaches:
    `cmodel = torch.compile(model)` of an instance (model: an attribute set on the compiled wrapper is not set on
    the module), `cmodel = torch.compile(Net())` (cmodel: a compiled module reads its module's attributes),
    `model.compile()` (model)."""
    instances = instances_of(tree, class_name)
    callers = {}
    for name, value in _name_bindings(tree):
        if not (isinstance(value, ast.Call) and is_compile(value) and value.args):
            continue
        compiled = value.args[0]
        if isinstance(compiled, ast.Name) and compiled.id in instances:
            callers[name] = compiled.id
        elif makes_instance(compiled, class_name):
            callers[name] = name
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "compile"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in instances
        ):
            callers[node.func.value.id] = node.func.value.id
    return callers


def compiled_function_names(tree: ast.Module, function_name: str) -> set[str]:
    """The names bound to `torch.compile(f)` of the function named (`f` itself for `f = torch.compile(f)`)."""
    return {
        name
        for name, value in _name_bindings(tree)
        if isinstance(value, ast.Call)
        and is_compile(value)
        and value.args
        and isinstance(value.args[0], ast.Name)
        and value.args[0].id == function_name
    }


def calls_by_name(tree: ast.Module, names: Collection[str]) -> list[ast.Call]:
    """Every call in the file of one of the plain names (`out = cmodel(x)`), in the order of a walk of the tree."""
    return [
        n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in names
    ]
