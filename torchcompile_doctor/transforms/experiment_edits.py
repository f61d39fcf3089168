"""The experiments the catalogue names (a `torch._dynamo.config` setting, a keyword of the `torch.compile` call,
`mark_dynamic` at the lines that call the compiled code, regional compilation of a module list) as edits of the
user's files, made by the one engine: a setting after `import torch` in the file that calls `torch.compile`, a
keyword of that call, `torch._dynamo.mark_dynamic` on the expression the user passes, the blocks compiled one by
one. A change that cannot be written in the user's project is refused with why. Nothing here runs the code."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import assert_never

from torchcompile_doctor.events.model import BackendUse, CallSite, EventLog
from torchcompile_doctor.model.edits import AddKeyword, AfterTorchImport, FileEdit, InsertBefore, ReplaceStatement
from torchcompile_doctor.model.experiment import (
    FUNCTION_SETS,
    CacheDir,
    CarriedCache,
    CompileKwargs,
    ConfigSwitch,
    Experiment,
    MarkDynamic,
    Regional,
    changes_of,
    describe,
)
from torchcompile_doctor.model.report import Finding
from torchcompile_doctor.patches.project import inside
from torchcompile_doctor.transforms.call_source import (
    argument_expression,
    compile_callee,
    compile_statement,
    function_lines,
    imports_torch,
    is_plain_reference,
    parameter_position,
)
from torchcompile_doctor.transforms.line_code import python_path

# settings known to end some programs (measured on real models: PendingUnbackedSymbolNotFound) or to only move
# a break to the next line that branches on the value
_RISKY_SETTINGS = {
    "capture_scalar_outputs": "may stop some programs with PendingUnbackedSymbolNotFound, or move the break to "
    "the next line that branches on the value",
    "capture_dynamic_output_shape_ops": "may stop some programs with PendingUnbackedSymbolNotFound, or move the "
    "break to the next line that branches on the result",
    "ignore_logging_functions": "the message is no longer logged while compiled code runs",
}
# settings that hide a problem rather than remove it: never offered as a fix
_HIDING_SETTINGS = {"recompile_limit", "cache_size_limit", "accumulated_recompile_limit", "suppress_errors"}

ReadSource = Callable[[Path], str | None]  # a file's text, None when it cannot be read


@dataclass(frozen=True)
class Program:
    """What the run recorded about the user's program: the project it lives in, its torch.compile calls, the
    lines that called compiled code, and its files' text."""

    root: Path
    compile_calls: tuple[BackendUse, ...]
    call_sites: tuple[CallSite, ...]
    read: ReadSource

    @classmethod
    def of(cls, log: EventLog, root: Path, read: ReadSource) -> Program:
        def mine(file: str | None) -> bool:
            return file is not None and inside(root, Path(file))

        return cls(
            root=root,
            compile_calls=tuple(b for b in log.backends if mine(b.file) and b.line is not None),
            call_sites=tuple(s for s in log.call_sites if mine(s.file)),
            read=read,
        )


def _config_code(key_: str, value: object) -> str:
    if key_ in FUNCTION_SETS and isinstance(value, tuple):
        # `pkg:logging.Logger.warning_once`: import pkg (it adds the function), then the name's own module
        names = [name.rpartition(":")[2] for name in value]
        first = [name.partition(":")[0] for name in value if ":" in name]
        own = [name.split(".")[0] for name in names if "." in name]
        lines = [f"import {module}" for module in dict.fromkeys([*first, *own])]
        return "\n".join([*lines, f"torch._dynamo.config.{key_}.update({{{', '.join(names)}}})"])
    return f"torch._dynamo.config.{key_} = {value!r}"


def _compile_files(program: Program) -> list[Path]:
    return sorted({Path(call.file) for call in program.compile_calls if call.file})


def _config_edits(change: ConfigSwitch, program: Program) -> list[FileEdit] | str:
    hiding = [k for k, _ in change.settings if k in _HIDING_SETTINGS]
    if hiding:
        return f"`{hiding[0]}` hides the problem rather than removing it"
    files = [f for f in _compile_files(program) if imports_torch(program.read(f) or "")]
    if not files:
        return "no file of the project both imports torch and calls torch.compile"
    return [FileEdit(f, AfterTorchImport(_config_code(k, v))) for f in files for k, v in change.settings]


def _compiling(program: Program, findings: Sequence[Finding]) -> list[BackendUse]:
    """The torch.compile calls that compiled the code the findings are in (all of them when none is known)."""
    places = [(f.location.file, f.location.line) for f in findings if f.location is not None]
    chosen = []
    for call in program.compile_calls:
        if call.function_file is None or call.function_line is None:
            continue
        lines = function_lines(program.read(Path(call.function_file)) or "", call.function_line)
        if lines is not None and any(_same_file(file, call.function_file) and line in lines for file, line in places):
            chosen.append(call)
    return chosen or list(program.compile_calls)


def _same_file(shown: str, recorded: str) -> bool:
    """A finding's file (as the report shows it, maybe relative) is the recorded absolute one."""
    return shown == recorded or recorded.endswith("/" + shown.lstrip("./"))


def _keyword_edits(change: CompileKwargs, program: Program, findings: Sequence[Finding]) -> list[FileEdit] | str:
    edits: list[FileEdit] = []
    for call in _compiling(program, findings):
        path, line = Path(call.file or ""), call.line or 0
        callee = compile_callee(program.read(path) or "", line)
        if callee is None:
            return f"{path.name}:{line} calls torch.compile through another name"
        # the keyword forced on the call replaces the user's (`dynamic=False` made `dynamic=True`), as in the trial
        edits += [
            FileEdit(path, AddKeyword(line, name, repr(value), callee, replace=True)) for name, value in change.kwargs
        ]
    return edits or "no torch.compile call in the project's files"


def _mark_edits(change: MarkDynamic, program: Program) -> list[FileEdit] | str:
    sites = [s for s in program.call_sites if (s.function_file, s.function_line) == (change.file, change.line)]
    if not sites:
        return f"no line of the project calls `{change.function}` directly"
    function_source = program.read(Path(change.file)) or ""
    position = parameter_position(function_source, change.line, change.variable)
    edits: list[FileEdit] = []
    for site in sites:
        source = program.read(Path(site.file)) or ""
        expression = argument_expression(source, site, change.variable, position)
        if expression is None or not is_plain_reference(expression):
            return f"the call at {Path(site.file).name}:{site.line} does not pass `{change.variable}` as a plain name"
        if not imports_torch(source):
            return f"{Path(site.file).name} does not `import torch`"
        code = f"torch._dynamo.mark_dynamic({expression}, {change.dim})"
        edits.append(FileEdit(Path(site.file), InsertBefore(site.line, code)))
    return edits


def _regional_edits(lists: Sequence[Regional], program: Program) -> list[FileEdit] | str:
    """`model = torch.compile(model)` made `model = model` and a loop compiling each block of each module list
    (a model whose encoder and decoder both loop over their layers gets both loops)."""
    modules = [c for c in program.compile_calls if c.compiled_kind == "module"]
    if len(modules) != 1:
        return "regional compilation is written for a program that compiles one model"
    call = modules[0]
    statement = compile_statement(program.read(Path(call.file)) or "", call.line)  # type: ignore[arg-type]
    if statement is None:
        return f"line {call.line} is not `model = torch.compile(model)`"
    loops = [
        f"for block in {python_path(change.module_list, statement.target)}:\n    block.compile({statement.keywords})\n"
        for change in lists
    ]
    code = f"{statement.target} = {statement.model}\n" + "".join(loops)
    return [FileEdit(Path(call.file), ReplaceStatement(call.line, code))]  # type: ignore[arg-type]


def experiment_edits(experiment: Experiment, program: Program, findings: Sequence[Finding]) -> list[FileEdit] | str:
    """The experiment's changes as edits of the user's files, or why they cannot be written there."""
    edits: list[FileEdit] = []
    lists = [change for change in changes_of(experiment) if isinstance(change, Regional)]
    if lists:
        made = _regional_edits(lists, program)
        if isinstance(made, str):
            return made
        edits += made
    for change in changes_of(experiment):
        match change:
            case Regional():
                continue  # all module lists at once, above
            case ConfigSwitch():
                made = _config_edits(change, program)
            case CompileKwargs():
                made = _keyword_edits(change, program, findings)
            case MarkDynamic():
                made = _mark_edits(change, program)
            case CarriedCache() | CacheDir():
                return "a cache setting is a setting of the machine, not a change of the code"
            case _:
                assert_never(change)
        if isinstance(made, str):
            return made
        edits += made
    return edits


def experiment_title(experiment: Experiment, edits: Sequence[FileEdit]) -> str:
    """The change in words, with the user's own expressions where it is code at their lines."""
    marks = [e for e in edits if isinstance(e.edit, InsertBefore)]
    if marks and all(isinstance(c, MarkDynamic) for c in changes_of(experiment)):
        return "; ".join(f"`{e.edit.code}` before {e.path.name}:{e.edit.line}" for e in marks)  # type: ignore[union-attr]
    return describe(experiment)


def experiment_caution(experiment: Experiment) -> str | None:
    settings = [k for change in changes_of(experiment) if isinstance(change, ConfigSwitch) for k, _ in change.settings]
    notes = [_RISKY_SETTINGS[k] for k in settings if k in _RISKY_SETTINGS]
    return "; ".join(dict.fromkeys(notes)) or None
