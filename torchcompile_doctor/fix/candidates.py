"""Candidate fixes, each a change a finding asks for as edits of the user's own files, made by the one engine
(transforms/): the rewrites the report's transforms built at the finding's line (its before/after and the
alternatives that built there), the experiments the catalogue names (transforms/experiment_edits.py), and the
transforms that need the lines that call the compiled function (a step's backward and optimizer calls, a call
made for its effect, moved after each call). A candidate whose edits cannot be made, or whose edited files do not
parse, is kept as not buildable, with why. Nothing here runs the code it reads; every candidate is measured
before it can reach a patch."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from torchcompile_doctor.events.model import CallSite
from torchcompile_doctor.model.edits import FileEdit as FileEdit  # trials read it from here
from torchcompile_doctor.model.experiment import (
    Combined,
    Experiment,
    Regional,
    describe,
    is_compile_time,
    key,
)
from torchcompile_doctor.model.report import Finding, Location, Report, Rewrite
from torchcompile_doctor.patches.edits import (
    AddKeyword,
    AddParameter,
    AfterTorchImport,
    Edit,
    EditError,
    InsertAfter,
    RemoveStatement,
    ReplaceStatement,
    WrapStatement,
    edit_source,
)
from torchcompile_doctor.patches.project import inside
from torchcompile_doctor.transforms.call_source import (
    EffectCall,
    PassedIn,
    StepTail,
    argument_expression,
    assigned_call,
    assigned_name,
    called_expression,
    comprehension_loop,
    effect_call,
    free_name,
    function_lines,
    helper_call_line,
    imports_torch,
    in_comprehension,
    is_plain_reference,
    parameter_position,
    passed_in_value,
    printed_return,
    renamed,
    step_tail,
)
from torchcompile_doctor.transforms.experiment_edits import (
    Program as Program,  # the session builds it from here
)
from torchcompile_doctor.transforms.experiment_edits import (
    experiment_caution,
    experiment_edits,
    experiment_title,
)
from torchcompile_doctor.transforms.library_arguments import (
    ProgramEdit,
    branch_argument_left_out,
    fallback_attribute_set,
)
from torchcompile_doctor.transforms.line_code import code_only
from torchcompile_doctor.transforms.registry import TRANSFORMS
from torchcompile_doctor.transforms.side_effects import NOT_COMPILING
from torchcompile_doctor.transforms.site import Site, SiteFacts
from torchcompile_doctor.transforms.sweeps import number_sweep, raise_recompile_limit


@dataclass(frozen=True)
class Candidate:
    """One change to measure, and the findings that asked for it."""

    title: str  # the change in words: `torch._dynamo.config.capture_scalar_outputs = True`
    codes: tuple[str, ...]  # the findings' rule codes
    findings: tuple[str, ...]  # the findings' titles
    edits: tuple[FileEdit, ...]
    by_compile_time: bool  # judged by compile time (regional compilation), not by breaks and recompiles
    caution: str | None = None  # what the change is known to do to some programs
    # where the findings it answers are (`file:line`): two changes answering one place are alternatives
    sites: tuple[str, ...] = ()
    # made for a sweep whose recompiles are inherent (transforms of the recompile_limit family): its recompiles may
    # rise as the calls past the limit compile, which the judge counts as compiling more
    inherent_recompiles: bool = False


@dataclass(frozen=True)
class Unbuildable:
    title: str
    codes: tuple[str, ...]
    reason: str


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
        sites=_sites((finding,)),
        edits=tuple(edits),
        by_compile_time=False,
    )


def _effect_after_call(finding: Finding, program: Program) -> Candidate | None:
    """A call made only for its effect in a compiled function (a metrics recorder, a print of its inputs), or the
    call there of the user's helper that holds the finding's line, moved after each line that calls the function,
    on what that line passes for the parameters it reads."""
    where = _users_place(finding, program)
    held = _compiled_function(finding, program)
    if where is None or held is None:
        return None
    path, source, function, line = held
    effect = effect_call(source, function, line)
    sites = [s for s in program.call_sites if (s.function_file, s.function_line) == (where.file, function)]
    if effect is None or not sites:
        return None
    moved = [_effect_at(effect, source, function, site, program) for site in sites]
    if any(m is None for m in moved):
        return None
    edits = [FileEdit(path, RemoveStatement(effect.line)), *(m for m in moved if m is not None)]
    return Candidate(
        title=f"`{effect.code}` moved out of `{where.function}`, after its call",
        codes=(finding.code,),
        findings=(finding.title,),
        sites=_sites((finding,)),
        edits=tuple(edits),
        by_compile_time=False,
    )


def _helper_call_guarded(finding: Finding, program: Program) -> Candidate | None:
    """The call, in a compiled function, of the user's helper that holds the finding's line (`record(...)`, whose
    `json.dumps` breaks) put under `if not torch.compiler.is_compiling():`: the helper runs in eager calls only.
    (A finding whose line is in the compiled function itself is guarded by `guard_is_compiling` at its site.)"""
    where = _users_place(finding, program)
    held = _compiled_function(finding, program)
    if where is None or held is None or held[3] == where.line:
        return None
    path, source, _, line = held
    if not imports_torch(source):  # the guard names torch
        return None
    code = code_only(source.splitlines()[line - 1]).strip()
    return Candidate(
        title=f"`{code}` under `if {NOT_COMPILING}:` in `{where.function}`'s caller",
        codes=(finding.code,),
        findings=(finding.title,),
        sites=_sites((finding,)),
        edits=(FileEdit(path, WrapStatement(line, NOT_COMPILING)),),
        by_compile_time=False,
    )


def _print_returned(finding: Finding, program: Program) -> Candidate | None:
    """A print in a compiled function whose values are returned beside its result and printed by each caller
    after the call (`y = model(x)` -> `y, printed = model(x)` and `print(*printed)`): the program prints the same
    lines, and the compiled function no longer breaks on the print. Only where every recorded call assigns the
    result to one name (the other callers would get a pair)."""
    where = _users_place(finding, program)
    held = _compiled_function(finding, program)
    if where is None or held is None or held[3] != where.line:
        return None
    path, source, function, line = held
    printed = printed_return(source, function, line)
    sites = [s for s in program.call_sites if (s.function_file, s.function_line) == (where.file, function)]
    if printed is None or not sites:
        return None
    name = free_name(source, "printed")
    keywords = f", {printed.keywords}" if printed.keywords else ""
    edits = [
        FileEdit(path, ReplaceStatement(printed.print_line, f"{name} = ({printed.values},)")),
        FileEdit(path, ReplaceStatement(printed.return_line, f"return {printed.result}, {name}")),
    ]
    for site in sorted({(s.file, s.line) for s in sites}):
        assigned = assigned_call(program.read(Path(site[0])) or "", site[1])
        if assigned is None:
            return None
        target, call = assigned
        code = f"{target}, {name} = {call}\nprint(*{name}{keywords})"
        edits.append(FileEdit(Path(site[0]), ReplaceStatement(site[1], code)))
    return Candidate(
        title=f"`print({printed.values})` returned by `{where.function}` and printed after its call",
        codes=(finding.code,),
        findings=(finding.title,),
        sites=_sites((finding,)),
        edits=tuple(edits),
        by_compile_time=False,
    )


def _passed_from_caller(finding: Finding, program: Program) -> list[Candidate]:
    """A value the compiled function computes from nothing of the call's (`sigma = next(self.levels)`: a
    generator advanced, a draw, a read of state) computed by each line that calls it and passed in, as it is and
    as a tensor (a Python float passed in is guarded as a constant: a recompile per value): the same values in the
    same order, and Dynamo never sees the generator. A method's `self` is read as the compiled module the caller
    calls (`next(model.levels)`: a compiled module's attributes are its module's)."""
    where = _users_place(finding, program)
    held = _compiled_function(finding, program)
    if where is None or held is None or held[3] != where.line:
        return []
    path, source, function, line = held
    value = passed_in_value(source, function, line)
    sites = [s for s in program.call_sites if (s.function_file, s.function_line) == (where.file, function)]
    if value is None or not sites:
        return []
    made: list[Candidate] = []
    for template in ("{value}", "torch.tensor({value})"):
        edits = [FileEdit(path, RemoveStatement(value.line)), FileEdit(path, AddParameter(value.def_line, value.name))]
        for site in sites:
            passed = _value_at_call(value, site, path, program)
            caller = program.read(Path(site.file)) or ""
            if passed is None or ("torch." in template and not imports_torch(caller)):
                return made
            code = template.format(value=passed[1])
            edits.append(FileEdit(Path(site.file), AddKeyword(site.line, value.name, code, callee=passed[0])))
        made.append(
            Candidate(
                title=f"`{value.name} = {value.code}` computed by the caller and passed in "
                f"(`{value.name}={template.format(value=value.code)}`)",
                codes=(finding.code,),
                findings=(finding.title,),
                sites=_sites((finding,)),
                edits=tuple(edits),
                by_compile_time=False,
            )
        )
    return made


def _value_at_call(value: PassedIn, site: CallSite, path: Path, program: Program) -> tuple[str, str] | None:
    """(what the call at `site` calls, the value's code as that line computes it): `self` read as the compiled
    module called there; a value reading the function's module names only where the call is in the same file."""
    callee = called_expression(program.read(Path(site.file)) or "", site)
    if callee is None:
        return None
    if value.reads_self:
        return callee, renamed(value.code, "self", callee)
    return (callee, value.code) if Path(site.file) == path else None


def _sites(findings: Sequence[Finding]) -> tuple[str, ...]:
    """The places of the findings (`file:line`, in the user's code where the run named it)."""
    places = (f.user_frame or f.location for f in findings)
    return tuple(dict.fromkeys(f"{p.file}:{p.line}" for p in places if p is not None))


def _users_place(finding: Finding, program: Program) -> Location | None:
    """The finding's line in the user's project: its own, or, for a break in a package's code, the user's line
    that called into it."""
    for place in (finding.location, finding.user_frame):
        if place is not None and inside(program.root, Path(place.file)):
            return place
    return None


def _compiled_function(finding: Finding, program: Program) -> tuple[Path, str, int, int] | None:
    """(its file, the file's text, the function's first line, the line in it) of the compiled function of the
    user's that holds the finding's line, or that calls, for its effect, the helper of the same file holding it
    (the line of that call)."""
    where = _users_place(finding, program)
    if where is None:
        return None
    source = program.read(Path(where.file)) or ""
    starts = [c.function_line for c in program.compile_calls if c.function_file == where.file and c.function_line]
    function = next((s for s in starts if where.line in (function_lines(source, s) or ())), None)
    if function is not None:
        return Path(where.file), source, function, where.line
    for start in starts:
        line = helper_call_line(source, start, where.line)
        if line is not None:
            return Path(where.file), source, start, line
    return None


def _effect_at(effect: EffectCall, source: str, function: int, site: CallSite, program: Program) -> FileEdit | None:
    """The call inserted after the line `site` on what that line passes for the parameters it reads (None: one is
    passed as an expression that, evaluated once more after the call, could differ)."""
    code = effect.code
    for parameter in effect.parameters:
        position = parameter_position(source, function, parameter)
        passed = argument_expression(program.read(Path(site.file)) or "", site, parameter, position)
        if passed is None or not is_plain_reference(passed):
            return None
        code = renamed(code, parameter, passed)
    caller = program.read(Path(site.file)) or ""
    if in_comprehension(caller, site):  # after each call of the comprehension: the loop it stands for
        loop = comprehension_loop(caller, site)
        return FileEdit(Path(site.file), ReplaceStatement(site.line, loop.with_after(code))) if loop else None
    return FileEdit(Path(site.file), InsertAfter(site.line, code))


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
        line = getattr(at.edit, "line", None)  # a setting after `import torch` stands at no line of the finding's
        made.append(
            Candidate(
                title=f"{_candidate_words(rewrite)} ({at.path.name}{f':{line}' if line else ''})",
                codes=(finding.code,),
                findings=(finding.title,),
                sites=_sites((finding,)),
                edits=rewrite.edits,
                by_compile_time=False,
                inherent_recompiles=rewrite.transform in TRANSFORMS
                and TRANSFORMS[rewrite.transform].family == "recompile_limit",
            )
        )
    return made


def _candidate_words(rewrite: Rewrite) -> str:
    """A short rewrite in its own code (`x` made `y`); a long one (a function split) by what its transform does."""
    settings = [e.edit.code for e in rewrite.edits if isinstance(e.edit, AfterTorchImport)]
    if settings and len(settings) == len(rewrite.edits):  # a setting made where the program starts
        return "; ".join(f"`{code_only(line).strip()}`" for code in settings for line in code.splitlines()) + (
            " after `import torch`"
        )
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
    kept, last, added = code_only(before.splitlines()[0]).strip(), statements[-1], statements[:-1]
    shown = "; ".join(f"`{s}`" for s in added[:3]) + (f" and {len(added) - 3} more" if len(added) > 3 else "")
    if last == kept and added and added[-1].endswith(":"):  # the line put under a condition
        return f"`{kept}` under `{added[-1]}`"
    if last == kept:
        return f"{shown} before `{kept}`"
    return f"`{kept}` made `{last}`" + (f" after {shown}" if added else "")


def _library_branch(
    made: Callable[[Location, Program], ProgramEdit | str],
) -> Callable[[Finding, Program], Candidate | None]:
    """A transform of transforms/library_arguments.py as a candidate: what the library branches on around the
    finding's line, changed at the user's lines that compile or call it."""

    def candidate(finding: Finding, program: Program) -> Candidate | None:
        edit = made(finding.location, program) if finding.location is not None else "no line"
        if isinstance(edit, str) or not all(inside(program.root, e.path) for e in edit.edits):
            return None
        return Candidate(
            title=edit.title,
            codes=(finding.code,),
            findings=(finding.title,),
            sites=_sites((finding,)),
            edits=edit.edits,
            by_compile_time=False,
        )

    return candidate


def _number_sweep_limit(finding: Finding, program: Program) -> Candidate | None:
    """The recompile limit raised to the size of a loop over literal numbers that passes them to the compiled
    code (transforms/sweeps.py `number_sweep`), offered at the finding's place beside the fixes that remove the
    recompiles (a tensor, `dynamic=True`, the loop's body compiled): where one of those helps it leaves fewer
    problems and the raise stays out (fix/trials.py); where none does, the recompiles are the sweep's own."""
    where = finding.location
    if where is None or not inside(program.root, Path(where.file)):
        return None
    path = Path(where.file)
    source = program.read(path)
    sweep = number_sweep(source, where.line) if source is not None else None
    if sweep is None or source is None:
        return None
    edits = raise_recompile_limit(Site(where.file, source, where.line, SiteFacts(sweep_items=sweep.items)))
    if isinstance(edits, str):
        return None
    return Candidate(
        title=f"`torch._dynamo.config.recompile_limit = {sweep.items}`: {sweep.words_in(path.name)}, each "
        "compiled once (kept only where no fix of its cause helps)",
        codes=(finding.code,),
        findings=(finding.title,),
        sites=_sites((finding,)),
        edits=tuple(FileEdit(path, e) for e in edits),
        by_compile_time=False,
        inherent_recompiles=True,
    )


# transforms that need the lines calling the compiled function (the run's call sites), by the name the catalogue
# gives them: each is measured like every other candidate
_PROGRAM_TRANSFORMS: dict[str, Callable[[Finding, Program], Candidate | list[Candidate] | None]] = {
    "move_outside": _step_outside,
    "move_after_call": _effect_after_call,
    "guard_helper_call": _helper_call_guarded,
    "return_printed": _print_returned,
    "leave_out_branch_argument": _library_branch(branch_argument_left_out),
    "set_fallback_attribute": _library_branch(fallback_attribute_set),
    "pass_from_caller": _passed_from_caller,
    "raise_limit_for_number_sweep": _number_sweep_limit,
}


def _program_candidates(finding: Finding, program: Program, names: tuple[str, ...]) -> list[Candidate | None]:
    """The candidates of the transforms named that need the lines calling the compiled function (each may give
    none, one, or alternatives)."""
    made = [_PROGRAM_TRANSFORMS[name](finding, program) for name in names if name in _PROGRAM_TRANSFORMS]
    return [one for each in made for one in (each if isinstance(each, list) else [each])]


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
        for made in (*_program_candidates(finding, program, names), *_finding_rewrites(finding, program)):
            if made is not None and all(made.edits != c.edits for c in built):
                built.append(made)
    for experiment, findings in _every_module_list(list(asked.values())):
        codes = tuple(dict.fromkeys(f.code for f in findings))
        edits = experiment_edits(experiment, program, findings)
        if isinstance(edits, str):
            refused.append(Unbuildable(describe(experiment), codes, edits))
            continue
        built.append(
            Candidate(
                title=experiment_title(experiment, edits),
                codes=codes,
                findings=tuple(f.title for f in findings),
                sites=_sites(findings),
                edits=tuple(edits),
                by_compile_time=is_compile_time(experiment),
                caution=experiment_caution(experiment),
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
