"""The `def`s of source files, parsed once per report: the function a code object comes from, the one
around a line, its qualified name (`Block.forward`, `f.<locals>.g`) and the parameters it defaults to None."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Sequence

RESUME = re.compile(r"^torch_dynamo_resume_in_(?P<function>.+)_at_(?P<line>\d+)$")


class FunctionDefs:
    def __init__(self, lines: Callable[[str], Sequence[str] | None]) -> None:
        self._lines = lines
        self._trees: dict[str, ast.Module | None] = {}

    def function_node(self, file: str, co_name: str, line: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The `def` of torch's code object (co_name, co_firstlineno); for a resume function, the `def` it
        resumes; None for comprehensions, lambdas and unreadable files."""
        resume = RESUME.match(co_name)
        if resume:
            co_name, line = resume["function"], int(resume["line"])
        found = self.find_def(file, co_name, line)
        return found[1] if found else None

    def enclosing_function(self, file: str, line: int) -> str | None:
        """The qualified name of the innermost `def` whose body holds `line` (None at module level)."""
        tree = self.tree(file)
        best: tuple[int, str] | None = None

        def visit(node: ast.AST, prefix: str) -> None:
            nonlocal best
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    name = f"{prefix}{child.name}"
                    inside = child.lineno <= line <= (child.end_lineno or child.lineno)
                    if inside and not isinstance(child, ast.ClassDef) and (best is None or child.lineno >= best[0]):
                        best = (child.lineno, name)
                    visit(child, f"{name}." if isinstance(child, ast.ClassDef) else f"{name}.<locals>.")

        if tree is not None:
            visit(tree, "")
        return best[1] if best else None

    def find_def(
        self, file: str, function: str, line: int
    ) -> tuple[str, ast.FunctionDef | ast.AsyncFunctionDef] | None:
        """The innermost `def function` whose lines (decorators included) hold `line`, with its qualified name."""
        tree = self.tree(file)
        if tree is None:
            return None
        best: tuple[int, str, ast.FunctionDef | ast.AsyncFunctionDef] | None = None

        def visit(node: ast.AST, prefix: str) -> None:
            nonlocal best
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    name = f"{prefix}{child.name}"
                    start = min([child.lineno] + [d.lineno for d in getattr(child, "decorator_list", [])])
                    end = child.end_lineno or child.lineno
                    if not isinstance(child, ast.ClassDef) and child.name == function and start <= line <= end:
                        if best is None or start >= best[0]:
                            best = (start, name, child)
                    visit(child, f"{name}." if isinstance(child, ast.ClassDef) else f"{name}.<locals>.")

        visit(tree, "")
        return (best[1], best[2]) if best else None

    def tree(self, file: str) -> ast.Module | None:
        """Each file is parsed once per report (library files can be thousands of lines)."""
        if file not in self._trees:
            lines = self._lines(file)
            try:
                text = "".join(lines) if lines and lines[0].endswith("\n") else "\n".join(lines or ())
                self._trees[file] = ast.parse(text) if lines else None
            except (SyntaxError, ValueError):
                self._trees[file] = None
        return self._trees[file]

    def none_default_parameters(self, file: str, line: int) -> tuple[str, ...]:
        """The parameters defaulting to None of the innermost function around `line` (what a caller may
        leave out, such as `attention_mask=None`)."""
        return _none_default_parameters(self.tree(file), line)


def wraps_target(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """The name a wrapper made with `@functools.wraps(func)` wraps (`func`: it becomes the wrapper's
    `__wrapped__`); None for a function that is no such wrapper."""
    for decorator in node.decorator_list:
        if not isinstance(decorator, ast.Call) or not decorator.args or not isinstance(decorator.args[0], ast.Name):
            continue
        called = decorator.func
        if (isinstance(called, ast.Name) and called.id == "wraps") or (
            isinstance(called, ast.Attribute) and called.attr == "wraps"
        ):
            return decorator.args[0].id
    return None


def calls_name(node: ast.AST, name: str, line: int) -> bool:
    """Whether the code of `node` on `line` calls the plain name `name` (`func(self, *args)`)."""
    return any(
        isinstance(child, ast.Call)
        and isinstance(child.func, ast.Name)
        and child.func.id == name
        and child.lineno <= line <= (child.end_lineno or child.lineno)
        for child in ast.walk(node)
    )


def _none_default_parameters(tree: ast.Module | None, line: int) -> tuple[str, ...]:
    """The parameters defaulting to None of the innermost function around `line` in `tree`."""
    around = [
        node
        for node in (ast.walk(tree) if tree is not None else ())
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.lineno <= line <= (node.end_lineno or node.lineno)
    ]
    if not around:
        return ()
    args = max(around, key=lambda node: node.lineno).args
    positional = args.posonlyargs + args.args
    pairs = list(zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None]
    return tuple(a.arg for a, d in pairs if isinstance(d, ast.Constant) and d.value is None)
