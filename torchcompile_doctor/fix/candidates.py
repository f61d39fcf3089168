"""Candidate fixes: each change a finding's fix asks for (its experiment), written as edits of the user's own
files at the lines the run recorded: a `torch._dynamo.config` setting after `import torch` in the file that calls
`torch.compile`, a keyword of that `torch.compile` call, `torch._dynamo.mark_dynamic` on the expression the user
passes at the line that calls the compiled code, regional compilation of the blocks the graph shows repeated;
the rewrite the report prints for a finding, made at the line it quotes (`mark_dynamic` on the tensors the call
passes, `mark_unbacked`, a number passed as a tensor, a mask the call left out passed); and code rewrites at the
user's line for some rules (_REWRITES: a branch on a tensor made one `torch.where`, a step function's backward and
optimizer calls moved after its call). A change that cannot be written in the
user's project (its line is in a library, the expression is no plain reference) is kept as not buildable, with
why. Nothing here runs the code it reads; every candidate is measured before it can reach a patch."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from torchcompile_doctor.analysis.regional import python_path
from torchcompile_doctor.events.model import BackendUse, CallSite, EventLog
from torchcompile_doctor.experiments.experiment import (
    FUNCTION_SETS,
    Combined,
    CompileKwargs,
    ConfigSwitch,
    Experiment,
    MarkDynamic,
    Regional,
    changes_of,
    describe,
    is_compile_time,
    key,
)
from torchcompile_doctor.fix.call_source import (
    StepTail,
    argument_expression,
    assigned_name,
    compile_callee,
    compile_statement,
    effect_call,
    function_lines,
    imports_torch,
    is_plain_reference,
    parameter_position,
    renamed,
    step_tail,
)
from torchcompile_doctor.model.edits import FileEdit as FileEdit  # trials read it from here
from torchcompile_doctor.model.report import Finding, Report, Rewrite
from torchcompile_doctor.patches.edits import (
    AddKeyword,
    AfterTorchImport,
    Edit,
    EditError,
    InsertAfter,
    InsertBefore,
    RemoveStatement,
    ReplaceStatement,
    edit_source,
)
from torchcompile_doctor.patches.project import inside
from torchcompile_doctor.transforms.line_code import code_only
from torchcompile_doctor.transforms.registry import TRANSFORMS

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
class Candidate:
    """One change to measure, and the findings that asked for it."""

    title: str  # the change in words: `torch._dynamo.config.capture_scalar_outputs = True`
    codes: tuple[str, ...]  # the findings' rule codes
    findings: tuple[str, ...]  # the findings' titles
    edits: tuple[FileEdit, ...]
    by_compile_time: bool  # judged by compile time (regional compilation), not by breaks and recompiles
    caution: str | None = None  # what the change is known to do to some programs


@dataclass(frozen=True)
class Unbuildable:
    title: str
    codes: tuple[str, ...]
    reason: str


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
        edits += [FileEdit(path, AddKeyword(line, name, repr(value), callee)) for name, value in change.kwargs]
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


def _edits(experiment: Experiment, program: Program, findings: Sequence[Finding]) -> list[FileEdit] | str:
    edits: list[FileEdit] = []
    lists = [change for change in changes_of(experiment) if isinstance(change, Regional)]
    if lists:
        made = _regional_edits(lists, program)
        if isinstance(made, str):
            return made
        edits += made
    for change in changes_of(experiment):
        if isinstance(change, Regional):
            continue
        if isinstance(change, ConfigSwitch):
            made = _config_edits(change, program)
        elif isinstance(change, CompileKwargs):
            made = _keyword_edits(change, program, findings)
        elif isinstance(change, MarkDynamic):
            made = _mark_edits(change, program)
        else:
            return "a cache setting is a setting of the machine, not a change of the code"
        if isinstance(made, str):
            return made
        edits += made
    return edits


def _title(experiment: Experiment, edits: Sequence[FileEdit]) -> str:
    """The change in words, with the user's own expressions where it is code at their lines."""
    marks = [e for e in edits if isinstance(e.edit, InsertBefore)]
    if marks and all(isinstance(c, MarkDynamic) for c in changes_of(experiment)):
        return "; ".join(f"`{e.edit.code}` before {e.path.name}:{e.edit.line}" for e in marks)  # type: ignore[union-attr]
    return describe(experiment)


def _caution(experiment: Experiment) -> str | None:
    settings = [k for change in changes_of(experiment) if isinstance(change, ConfigSwitch) for k, _ in change.settings]
    notes = [_RISKY_SETTINGS[k] for k in settings if k in _RISKY_SETTINGS]
    return "; ".join(dict.fromkeys(notes)) or None


def _step_outside(finding: Finding, program: Program) -> Candidate | None:
    """`loss.backward()` and the optimizer calls after it, in a compiled step function, moved after each line
    that calls the function (AOTAutograd then compiles the backward of the graph the function returns)."""
    where = finding.location
    if where is None or not inside(program.root, Path(where.file)):
        return None
    path = Path(where.file)
    source = program.read(path) or ""
    starts = [c.function_line for c in program.compile_calls if c.function_file == where.file and c.function_line]
    function = next((s for s in starts if where.line in (function_lines(source, s) or ())), None)
    if function is None:
        return None
    tail = step_tail(source, function, where.line)
    sites = [s for s in program.call_sites if (s.function_file, s.function_line) == (where.file, function)]
    if tail is None or not sites:
        return None
    moved = _moved_after_calls(tail, sites, program)
    if moved is None:
        return None
    edits = [FileEdit(path, RemoveStatement(line)) for line in tail.lines] + moved
    return Candidate(
        title=f"{', '.join(f'`{c}`' for c in tail.code)} moved out of `{where.function}`, after its call",
        codes=(finding.code,),
        findings=(finding.title,),
        edits=tuple(edits),
        by_compile_time=False,
    )


def _effect_after_call(finding: Finding, program: Program) -> Candidate | None:
    """A call made only for its effect in a compiled function (a metrics recorder, a print of its inputs) moved
    after each line that calls the function, on what that line passes for the parameters it reads."""
    where = finding.location
    if where is None or not inside(program.root, Path(where.file)):
        return None
    path = Path(where.file)
    source = program.read(path) or ""
    starts = [c.function_line for c in program.compile_calls if c.function_file == where.file and c.function_line]
    function = next((s for s in starts if where.line in (function_lines(source, s) or ())), None)
    effect = effect_call(source, function, where.line) if function is not None else None
    sites = [s for s in program.call_sites if (s.function_file, s.function_line) == (where.file, function)]
    if effect is None or function is None or not sites:
        return None
    edits = [FileEdit(path, RemoveStatement(effect.line))]
    for site in sites:
        code = effect.code
        for parameter in effect.parameters:
            position = parameter_position(source, function, parameter)
            passed = argument_expression(program.read(Path(site.file)) or "", site, parameter, position)
            if passed is None or not is_plain_reference(passed):
                return None  # evaluated once more after the call, it could differ
            code = renamed(code, parameter, passed)
        edits.append(FileEdit(Path(site.file), InsertAfter(site.line, code)))
    return Candidate(
        title=f"`{effect.code}` moved out of `{where.function}`, after its call",
        codes=(finding.code,),
        findings=(finding.title,),
        edits=tuple(edits),
        by_compile_time=False,
    )


def _moved_after_calls(tail: StepTail, sites: list[CallSite], program: Program) -> list[FileEdit] | None:
    """The step's tail inserted after each line that calls the function, on the name that line assigns the
    result to (None: a call whose result is not assigned)."""
    edits = []
    for site in sites:
        target = assigned_name(program.read(Path(site.file)) or "", site.line)
        if target is None:
            return None
        moved = "\n".join(renamed(code, tail.variable, target) for code in tail.code)
        edits.append(FileEdit(Path(site.file), InsertAfter(site.line, moved)))
    return edits


def _finding_rewrites(finding: Finding, program: Program) -> list[Candidate]:
    """The rewrites the report's transforms built for the finding (the one it prints, and the alternatives that
    built at the same line): each the transform's edits of the user's file, so the candidate measured is the edit
    the report shows."""
    fix = finding.fix
    if fix is None:
        return []
    made = []
    for rewrite in fix.rewrites:
        if not rewrite.edits or not all(inside(program.root, e.path) for e in rewrite.edits):
            continue  # not the user's project
        at = rewrite.edits[0]
        made.append(
            Candidate(
                title=f"{_candidate_words(rewrite)} ({at.path.name}:{getattr(at.edit, 'line', '')})",
                codes=(finding.code,),
                findings=(finding.title,),
                edits=rewrite.edits,
                by_compile_time=False,
            )
        )
    return made


def _candidate_words(rewrite: Rewrite) -> str:
    """A short rewrite in its own code (`x` made `y`); a long one (a function split) by what its transform does."""
    words = TRANSFORMS[rewrite.transform].words if rewrite.transform in TRANSFORMS else ""
    if words and (len(rewrite.after.splitlines()) > 3 or "\n...\n" in rewrite.after):
        changed = rewrite.before.split("\n...\n")[-1].strip()  # the site's own statement: the last run of changes
        return f"`{changed}`: {words}" if changed and "\n" not in changed else words
    return _rewrite_words(rewrite.before, rewrite.after)


def _rewrite_words(before: str, after: str) -> str:
    """A rewrite in words: the statements it adds before the line (`mark_dynamic(k, 0)`), and the line as it
    becomes where it changes (`f(x, torch.tensor(step))`)."""
    statements = [code_only(line).strip() for line in after.splitlines() if code_only(line).strip()]
    if not statements:
        return f"`{code_only(before).strip()}` rewritten"
    kept, last, added = code_only(before).strip(), statements[-1], statements[:-1]
    shown = "; ".join(f"`{s}`" for s in added[:3]) + (f" and {len(added) - 3} more" if len(added) > 3 else "")
    if last == kept:
        return f"{shown} before `{kept}`"
    return f"`{kept}` made `{last}`" + (f" after {shown}" if added else "")


# transforms that need the lines calling the compiled function (the run's call sites), by the name the catalogue
# gives them: each is measured like every other candidate
_PROGRAM_TRANSFORMS: dict[str, Callable[[Finding, Program], Candidate | None]] = {
    "move_outside": _step_outside,
    "move_after_call": _effect_after_call,
}


def candidates(report: Report, program: Program) -> tuple[list[Candidate], list[Unbuildable]]:
    """The distinct changes the report's fixes ask for (most harmful finding first), as edits of the project."""
    asked: dict[str, tuple[Experiment, list[Finding]]] = {}
    built: list[Candidate] = []
    refused: list[Unbuildable] = []
    for finding in report.findings:
        experiment = finding.fix.experiment if finding.fix else None
        if experiment is not None:
            asked.setdefault(key(experiment), (experiment, []))[1].append(finding)
        names = finding.fix.transforms if finding.fix else ()
        programs = [_PROGRAM_TRANSFORMS[name](finding, program) for name in names if name in _PROGRAM_TRANSFORMS]
        for made in (*programs, *_finding_rewrites(finding, program)):
            if made is not None and all(made.edits != c.edits for c in built):
                built.append(made)
    for experiment, findings in _every_module_list(list(asked.values())):
        codes = tuple(dict.fromkeys(f.code for f in findings))
        edits = _edits(experiment, program, findings)
        if isinstance(edits, str):
            refused.append(Unbuildable(describe(experiment), codes, edits))
            continue
        built.append(
            Candidate(
                title=_title(experiment, edits),
                codes=codes,
                findings=tuple(f.title for f in findings),
                edits=tuple(edits),
                by_compile_time=is_compile_time(experiment),
                caution=_caution(experiment),
            )
        )
    buildable = [c for c in built if _why_not_buildable(c, program) is None]
    refused += [Unbuildable(c.title, c.codes, why) for c in built if (why := _why_not_buildable(c, program))]
    return buildable, refused


def _why_not_buildable(candidate: Candidate, program: Program) -> str | None:
    """Why the candidate's edits cannot be made on the user's files as they are (None: they can, and the edited
    files parse): a candidate that fails is dropped with this reason and the others are measured."""
    by_file: dict[Path, list[Edit]] = {}
    for made in candidate.edits:
        by_file.setdefault(made.path, []).append(made.edit)
    for path, edits in by_file.items():
        source = program.read(path)
        if source is None:
            return f"{path.name} cannot be read"
        try:
            edit_source(source, edits)
        except EditError as error:
            return f"{path.name}: {error}"
    return None


def _every_module_list(
    asked: list[tuple[Experiment, list[Finding]]],
) -> list[tuple[Experiment, list[Finding]]]:
    """Where findings ask for regional compilation over different module lists (an encoder's layers and a
    decoder's), one change that compiles the blocks of all of them instead: compiling one list alone leaves the
    other part of the model uncompiled, which trial figures read as fewer problems (measured on BART training:
    the encoder's layers alone, 0 recompiles; both, 1 recompile and the decoder compiled too)."""
    regional = [(e, f) for e, f in asked if isinstance(e, Regional)]
    if len(regional) < 2:
        return asked
    lists = tuple(e for e, _ in regional if isinstance(e, Regional))
    every: tuple[Experiment, list[Finding]] = (Combined(lists), [f for _, found in regional for f in found])
    return [(e, f) for e, f in asked if not isinstance(e, Regional)] + [every]


def edited_files(edits: Sequence[FileEdit]) -> list[Path]:
    return sorted({e.path for e in edits})
