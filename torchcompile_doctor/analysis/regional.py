"""Regional compilation where it helps, at the model's real attribute path: the loop over repeated blocks
(`for layer in self.layers: hidden = layer(hidden)`) a break's stack passes through, the attribute path from the
compiled module down to that list (each `self.encoder(...)` call on the way), and whether the break is inside a
block (compiling the blocks one by one still breaks in each) or between them (the loop then runs eagerly and
each block compiles without a break). Read from the source of the frames on the stack, never run."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass

from torchcompile_doctor.analysis.code import THIRD_PARTY, USER, CodeMap
from torchcompile_doctor.analysis.function_defs import wraps_target
from torchcompile_doctor.analysis.index import AnalysisIndex
from torchcompile_doctor.events.model import GraphBreak, StackFrame
from torchcompile_doctor.transforms.line_code import is_torch_function, python_path

_LOOPS = (ast.For, ast.AsyncFor)


@dataclass(frozen=True)
class RepeatedBlocks:
    """The module list a break's stack loops over: its path from the compiled module (`encoder.layers`), and
    whether the break happened inside one of its blocks."""

    path: str
    inside_block: bool

    @property
    def code(self) -> str:
        return f"for block in {python_path(self.path)}: block.compile()"


def repeated_blocks_on(code: CodeMap, stack: Sequence[StackFrame]) -> RepeatedBlocks | None:
    """The innermost loop over a module list of `self` on the stack whose body calls each element, with the
    path to it from the compiled module; None where the stack passes through no such loop, or the path to it
    is not a chain of `self.child(...)` calls."""
    frames = [f for f in stack if code.origin(f.file) in (USER, THIRD_PARTY) and not _is_wrapper(code, f)]
    for position in range(len(frames) - 1, -1, -1):
        frame = frames[position]
        found = _block_loop(code, frame)
        if found is None:
            continue
        attribute, variable = found
        prefix = _path_to(code, frames[: position + 1])
        if prefix is None or not _blocks_of_users_class(code, frame, attribute):
            return None
        statement = _statement_tree(code, frame)
        inside = position + 1 < len(frames) and statement is not None and _calls_name(statement, variable)
        return RepeatedBlocks(".".join([*prefix, attribute]), inside)
    return None


def _is_wrapper(code: CodeMap, frame: StackFrame) -> bool:
    node = code.defs.function_node(frame.file, frame.function, frame.line)
    return node is not None and wraps_target(node) is not None


def _block_loop(code: CodeMap, frame: StackFrame) -> tuple[str, str] | None:
    """(the attribute of `self` looped over, the loop variable) for the innermost `for` around the frame's line
    that iterates over `self.X` (or `enumerate(self.X)`, `self.X[:n]`, ...) and calls its loop variable."""
    node = code.defs.function_node(frame.file, frame.function, frame.line)
    if node is None:
        return None
    loops = [
        n
        for n in ast.walk(node)
        if isinstance(n, _LOOPS) and n.body[0].lineno <= frame.line <= (n.end_lineno or n.lineno)
    ]
    for loop in sorted(loops, key=lambda n: -n.lineno):
        attribute = next(
            (
                a.attr
                for a in ast.walk(loop.iter)
                if isinstance(a, ast.Attribute) and isinstance(a.value, ast.Name) and a.value.id == "self"
            ),
            None,
        )
        variables = [n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)]
        called = next((v for v in variables if any(_calls_name(s, v) for s in loop.body)), None)
        if attribute is not None and called is not None:
            return attribute, called
    return None


# torch's containers: the blocks are what they are made of
_CONTAINERS = frozenset({"ModuleList", "Sequential", "ModuleDict", "list", "tuple", "range", "enumerate", "zip"})


def _blocks_of_users_class(code: CodeMap, frame: StackFrame, attribute: str) -> bool:
    """`self.ATTRIBUTE` is made in `__init__` of blocks of a class of the user's (`nn.ModuleList([Block(d) for _
    in range(n)])`), not of torch.nn's own (`nn.Conv1d`): Dynamo does not trace a built-in module's forward
    compiled on its own, so compiling those one by one compiles nothing. Unknown: no."""
    node = code.defs.function_node(frame.file, frame.function, frame.line)
    init = code.defs.sibling_method(frame.file, node.lineno, "__init__") if node is not None else None
    made = [
        n.value
        for n in (ast.walk(init) if init is not None else ())
        if isinstance(n, ast.Assign)
        and any(isinstance(t, ast.Attribute) and ast.unparse(t) == f"self.{attribute}" for t in n.targets)
    ]
    calls = [c.func for value in made for c in ast.walk(value) if isinstance(c, ast.Call)]
    blocks = [f for f in calls if _last_name(f) not in _CONTAINERS]
    torch_names = _names_from_torch(code.defs.tree(frame.file))
    return bool(blocks) and not any(is_torch_function(f) or _last_name(f) in torch_names for f in blocks)


def _last_name(func: ast.expr) -> str:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _names_from_torch(tree: ast.Module | None) -> set[str]:
    """The names a file imports from torch (`from torch.nn import Conv1d`)."""
    return {
        alias.asname or alias.name
        for node in (ast.walk(tree) if tree is not None else ())
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "torch"
        for alias in node.names
    }


def _path_to(code: CodeMap, frames: list[StackFrame]) -> list[str] | None:
    """The attributes from the compiled module down to the last frame's `self`: each earlier frame whose line
    calls `self.child(...)` into a module's code adds `child`; the first frame that does not is the caller of
    the compiled module."""
    path: list[str] = []
    for caller, callee in zip(reversed(frames[:-1]), reversed(frames[1:]), strict=True):
        statement = _statement_tree(code, caller)
        children = _self_children_called(statement) if statement is not None else set()
        if not children:
            return path
        if len(children) > 1:  # `self.decoder(self.encoder(x))`: the line does not say which one the stack went through
            return None
        child = children.pop()
        if child != callee.function:  # a method of the same module (`self._block(x)`), not a child module
            path.insert(0, child)
    return path


def _statement_tree(code: CodeMap, frame: StackFrame) -> ast.AST | None:
    """The statement of the frame's function that holds the frame's line."""
    node = code.defs.function_node(frame.file, frame.function, frame.line)
    if node is None:
        return None
    inside = [
        s
        for s in ast.walk(node)
        if isinstance(s, ast.stmt) and s is not node and s.lineno <= frame.line <= (s.end_lineno or s.lineno)
    ]
    simple = [s for s in inside if not isinstance(s, (ast.For, ast.AsyncFor, ast.While, ast.If, ast.With, ast.Try))]
    return min(simple, key=lambda s: (s.end_lineno or s.lineno) - s.lineno) if simple else None


def _self_children_called(statement: ast.AST) -> set[str]:
    """Each `child` of the `self.child(...)` calls in a statement."""
    return {
        node.func.attr
        for node in ast.walk(statement)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "self"
    }


def _calls_name(statement: ast.AST, name: str) -> bool:
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name for n in ast.walk(statement)
    )


def lists_around_break(index: AnalysisIndex, records: list[GraphBreak]) -> tuple[RepeatedBlocks, ...]:
    """The model's real module lists whose loops hold the break between their blocks (inside a block, compiling
    the blocks one by one still breaks in each): where regional compilation removes the break. A class used
    twice (an encoder's and a decoder's stack) gives one list per use. Only a stack through the compiled
    module's forward gives a path from the model (one compiled on its own after a skip starts lower down)."""
    stacks = dict.fromkeys(r.user_stack for r in records)  # the records of one site mostly share their stack
    found = (repeated_blocks_on(index.code, s) if _from_compiled_module(index, s) else None for s in stacks)
    lists = [b for b in found if b is not None and not b.inside_block]
    return tuple(dict.fromkeys(twin for b in lists for twin in _same_class_twins(index, b)))


def _same_class_twins(index: AnalysisIndex, blocks: RepeatedBlocks) -> list[RepeatedBlocks]:
    """The list and its twins: where the compiled model's `__init__` makes two children of one class
    (`self.encoder = Stack()`, `self.decoder = Stack()`), torch records the break in the first one only (it
    skips that code from then on), and compiling one list's blocks would leave the other's uncompiled."""
    child, _, rest = blocks.path.partition(".")
    modules = [b for b in index.log.backends if b.compiled_kind == "module" and b.function_file and b.function_line]
    if not rest or len(modules) != 1:
        return [blocks]
    init = index.code.defs.sibling_method(modules[0].function_file or "", modules[0].function_line or 0, "__init__")
    made = _children_made(init) if init is not None else {}
    twins = [name for name, kind in made.items() if kind == made.get(child)] if child in made else [child]
    return [RepeatedBlocks(f"{name}.{rest}", blocks.inside_block) for name in twins]


def _children_made(init: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, str]:
    """`self.encoder = Stack(...)` in `__init__`: each child's name and the class it is made of, in order."""
    made: dict[str, str] = {}
    for node in ast.walk(init):
        if not isinstance(node, ast.Assign) or not isinstance(node.value, ast.Call) or len(node.targets) != 1:
            continue
        target, called = node.targets[0], node.value.func
        if is_torch_function(called):
            continue  # torch's containers and layers: two of them are no twins of a model's own stack
        kind = called.id if isinstance(called, ast.Name) else called.attr if isinstance(called, ast.Attribute) else None
        if (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == "self"
            and kind
        ):
            made[target.attr] = kind
    return made


def _from_compiled_module(index: AnalysisIndex, stack: tuple[StackFrame, ...]) -> bool:
    """The stack passes through the forward of a module the user compiled (the path to a module list is then
    read from that module down): the `forward` torch recorded, or, where a decorator wraps it (transformers'
    `can_return_tuple`: the recorded function is the wrapper's), the compiled class's own `forward`."""
    modules = [b for b in index.log.backends if b.compiled_kind == "module"]
    forwards = {(b.function_file, b.function_line) for b in modules}
    own = {f"{b.compiled}.forward" for b in modules if b.compiled}
    for frame in (f for f in stack if index.code.origin(f.file) in (USER, THIRD_PARTY)):
        found = index.code.defs.find_def(frame.file, frame.function, frame.line)
        if found is not None and (
            found.qualified in own or {(frame.file, found.start), (frame.file, found.line)} & forwards
        ):
            return True
    return False
