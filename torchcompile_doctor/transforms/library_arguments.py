"""What a library branches on, where the branch holds a break (a warning, a log call, a print) inside the code the
user compiled: the keyword the user's call passes that takes the branch, left out so the library's default path
runs (`model(x, output_attentions=True)` -> `model(x)`), or the attribute whose None takes it, set on the user's
model before it is compiled to the value the library falls back to (`if self.config.pad_token_id is None:` ...
`pad = -1` -> `lm.config.pad_token_id = -1`, so the same value is used without the branch). Read from the break's
function and from the user's lines that compile and call it (the run's records); nothing here runs the code. Each
is a candidate: the trial proves the program prints the same numbers."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from torchcompile_doctor.events.model import BackendUse, CallSite
from torchcompile_doctor.model.edits import FileEdit, InsertBefore, ReplaceStatement
from torchcompile_doctor.model.report import Location
from torchcompile_doctor.transforms.call_source import compile_statement
from torchcompile_doctor.transforms.experiment_edits import Program
from torchcompile_doctor.transforms.line_code import drop_keyword
from torchcompile_doctor.transforms.site import Site
from torchcompile_doctor.transforms.statements import simple_statement

_Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class ProgramEdit:
    """A change of the user's files a program-level transform made, and its words."""

    title: str
    edits: tuple[FileEdit, ...]


@dataclass(frozen=True)
class _Break:
    """The function holding the break, its file, and the `if` statements around the break (innermost first)."""

    file: str
    function: _Function
    branches: tuple[ast.If, ...]
    name: str  # as the run named the function (`Encoder.forward`)

    def first_line(self) -> int:
        return min([self.function.lineno, *(d.lineno for d in self.function.decorator_list)])


def _break_of(place: Location, program: Program) -> _Break | str:
    source = program.read(Path(place.file))
    try:
        tree = ast.parse(source or "")
    except SyntaxError:
        return f"{Path(place.file).name} does not parse"
    functions = [
        n for n in ast.walk(tree) if isinstance(n, _Function) and n.lineno <= place.line <= (n.end_lineno or n.lineno)
    ]
    if not functions:
        return "the break is in no function"
    function = max(functions, key=lambda n: n.lineno)
    branches = [
        n for n in ast.walk(function) if isinstance(n, ast.If) and n.lineno <= place.line <= (n.end_lineno or 0)
    ]
    if not branches:
        return f"no `if` in `{place.function or function.name}` holds the break"
    return _Break(
        place.file, function, tuple(sorted(branches, key=lambda n: -n.lineno)), place.function or function.name
    )


def _calls_of(found: _Break, program: Program) -> list[CallSite]:
    """The user's lines that call the compiled function holding the break, else (a library's inner function the
    compiled model reaches, its argument passed down by name) every line that calls compiled code: each once."""
    first, start = found.first_line(), found.function.lineno
    sites = [s for s in program.call_sites if s.function_file == found.file and first <= s.function_line <= start]
    return sorted({(s.file, s.line): s for s in sites or program.call_sites}.values(), key=lambda s: (s.file, s.line))


def _compiles_of(found: _Break, program: Program) -> list[BackendUse]:
    """The user's `torch.compile` calls that compiled the module whose method holds the break, else (a library's
    inner module, sharing its config with the model) the one module the program compiles."""
    first, start = found.first_line(), found.function.lineno
    modules = [c for c in program.compile_calls if c.compiled_kind == "module"]
    own = [
        c
        for c in modules
        if c.function_file == found.file and c.function_line is not None and first <= c.function_line <= start
    ]
    return own or (modules if len(modules) == 1 else [])


def _defaults(function: _Function) -> dict[str, str]:
    """Parameters with a literal default (`output_attentions=False`, `mask=None`): name -> the default's code."""
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    pairs = list(zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None]
    return {a.arg: ast.unparse(d) for a, d in pairs if isinstance(d, ast.Constant)}


def branch_argument_left_out(place: Location, program: Program) -> ProgramEdit | str:
    """The keyword the user's call passes that an `if` around the break reads, left out of every call that passes
    it: the function's default applies and the branch holding the break is not taken."""
    found = _break_of(place, program)
    if isinstance(found, str):
        return found
    defaults = _defaults(found.function)
    read = {n.id for branch in found.branches for n in ast.walk(branch.test) if isinstance(n, ast.Name)}
    arguments = sorted(read & set(defaults))
    if not arguments:
        return "no `if` around the break reads an argument that has a default"
    sites = _calls_of(found, program)
    if not sites:
        return f"no line of the project calls `{found.name}` directly"
    edits: list[FileEdit] = []
    left_out: list[str] = []
    for site in sites:
        statement = simple_statement(Site(site.file, program.read(Path(site.file)) or "", site.line))
        if isinstance(statement, str):
            continue
        for argument in arguments:
            dropped = drop_keyword(statement.code, argument)
            if dropped is not None:
                edits.append(FileEdit(Path(site.file), ReplaceStatement(statement.node.lineno, dropped)))
                left_out.append(argument)
                break
    if not edits:
        return f"no call of `{found.name}` passes {', '.join(f'`{a}`' for a in arguments)} by keyword"
    argument, first = left_out[0], edits[0]
    at = f"{first.path.name}:{getattr(first.edit, 'line', '')}" + (
        f" and {len(edits) - 1} more" if len(edits) > 1 else ""
    )
    return ProgramEdit(
        f"`{argument}=` left out of the call at {at} (the default of `{found.name}`, `{defaults[argument]}`, "
        f"skips the branch at {Path(found.file).name}:{found.branches[0].lineno})",
        tuple(edits),
    )


def _none_attribute(test: ast.expr) -> str | None:
    """`self.config.pad_token_id is None` -> `config.pad_token_id`."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Is)):
        return None
    right = test.comparators[0]
    code = ast.unparse(test.left)
    if not (isinstance(right, ast.Constant) and right.value is None and code.startswith("self.")):
        return None
    return code.removeprefix("self.")


def _literal(node: ast.expr) -> bool:
    inner = node.operand if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) else node
    return isinstance(inner, ast.Constant) and isinstance(inner.value, int | float | str | bool)


def _fallback(branch: ast.If, attribute: str) -> str | None:
    """The literal the branch gives a name that its `else` gives the attribute (`pad = -1` / `pad = self.X`)."""
    given = {
        t.id: s.value
        for s in branch.body
        if isinstance(s, ast.Assign) and _literal(s.value)
        for t in s.targets
        if isinstance(t, ast.Name)
    }
    for statement in branch.orelse:
        if isinstance(statement, ast.Assign) and ast.unparse(statement.value) == f"self.{attribute}":
            names = [t.id for t in statement.targets if isinstance(t, ast.Name) and t.id in given]
            if names:
                return ast.unparse(given[names[0]])
    return None


def fallback_attribute_set(place: Location, program: Program) -> ProgramEdit | str:
    """The attribute whose None takes the branch holding the break, set on the user's model before the line that
    compiles it, to the value the library falls back to when it is None: the same value, without the branch."""
    found = _break_of(place, program)
    if isinstance(found, str):
        return found
    chosen = next(
        (
            (attribute, value)
            for branch in found.branches
            if (attribute := _none_attribute(branch.test)) is not None
            and (value := _fallback(branch, attribute)) is not None
        ),
        None,
    )
    if chosen is None:
        return "no `if self.<attribute> is None:` around the break gives a value its `else` reads from the attribute"
    attribute, value = chosen
    compiles = _compiles_of(found, program)
    edits: list[FileEdit] = []
    for call in compiles:
        statement = compile_statement(program.read(Path(call.file or "")) or "", call.line or 0)
        if statement is None or not statement.model.replace(".", "").isidentifier():
            return f"the model compiled at line {call.line} is not a name the attribute can be set on"
        edits.append(
            FileEdit(Path(call.file or ""), InsertBefore(call.line or 0, f"{statement.model}.{attribute} = {value}"))
        )
    if not edits:
        return f"no line of the project compiles the module whose `{found.name}` breaks"
    code = edits[0].edit.code if isinstance(edits[0].edit, InsertBefore) else ""
    return ProgramEdit(
        f"`{code}` before the model is compiled (the value `{found.name}` uses when it is None)", tuple(edits)
    )
