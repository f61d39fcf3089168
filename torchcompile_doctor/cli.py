"""The command line (typer only): options -> Settings -> one pipeline call -> render -> emit -> exit code.

Never imports torch: only the capture child does.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import gc
import os
import shutil
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ParamSpec

import typer

from torchcompile_doctor import __version__
from torchcompile_doctor import cli_options as opt
from torchcompile_doctor.errors import DoctorError
from torchcompile_doctor.exit_codes import ExitCode
from torchcompile_doctor.torch_releases import outside_range_note

if TYPE_CHECKING:  # a command loads the settings and the pipeline it calls, not `doctor --help`
    from torchcompile_doctor import pipeline
    from torchcompile_doctor.model.report import Report
    from torchcompile_doctor.renderers import RenderOptions

app = typer.Typer(
    name="doctor",
    help="Explains what torch.compile did to your program: graph breaks, recompiles, fallbacks to eager.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


P = ParamSpec("P")


def _fail(message: str, code: int = ExitCode.USAGE) -> None:
    typer.echo(f"doctor: error: {message}", err=True)
    raise typer.Exit(code)


def _one_line_errors(command: Callable[P, None]) -> Callable[P, None]:
    @functools.wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> None:
        try:
            return command(*args, **kwargs)
        except DoctorError as error:
            _fail(str(error).strip().splitlines()[0] if str(error).strip() else "error")

    return wrapper


def _emit(text: str, output: Path | None) -> None:
    _emit_parts(lambda write: write(text), output)


def _emit_parts(produce: Callable[[Callable[[str], object]], object], output: Path | None) -> None:
    """What `produce` hands its `write` goes to stdout or the --output file as it comes (a big report's JSON is
    never whole in memory)."""
    if output is None:
        produce(sys.stdout.write)
        sys.stdout.flush()
        return
    try:
        with output.open("w", encoding="utf-8") as stream:
            produce(stream.write)
    except OSError as error:
        raise DoctorError(f"cannot write --output {output}: {error.strerror}") from None


def _render(
    reports: Sequence[Report],
    fmt: str,
    output: Path | None,
    *,
    show_guards: bool = False,
    perfetto_file: str | None = None,
) -> str:
    """The outside world a renderer may depend on (the tty, NO_COLOR, the width, the cwd), read here only."""
    from torchcompile_doctor.renderers import render, render_all

    options = _render_options(fmt, output, show_guards, perfetto_file)
    if len(reports) > 1:
        return render_all(reports, fmt, options)
    return render(reports[0], fmt, options)


def _render_options(fmt: str, output: Path | None, show_guards: bool, perfetto_file: str | None) -> RenderOptions:
    from torchcompile_doctor.renderers import RenderOptions

    color = fmt == "terminal" and output is None and sys.stdout.isatty() and "NO_COLOR" not in os.environ
    # the terminal's width on a terminal (colour or not); no wrapping into a file, a pipe or `less`
    width = shutil.get_terminal_size((110, 24)).columns if output is None and sys.stdout.isatty() else None
    return RenderOptions(
        color=color, width=width, base_dir=os.getcwd(), show_guards=show_guards, perfetto_file=perfetto_file
    )


def _rendered(
    reports: Sequence[Report], fmt: str, output: Path | None, show_guards: bool, perfetto_file: str | None
) -> Callable[[Callable[[str], object]], object]:
    """`_render`'s text for `_emit_parts`: one report handed on in parts as its renderer writes them."""
    from torchcompile_doctor.renderers import render_to

    if len(reports) > 1:
        text = _render(reports, fmt, output, show_guards=show_guards, perfetto_file=perfetto_file)
        return lambda write: write(text)
    options = _render_options(fmt, output, show_guards, perfetto_file)
    return lambda write: render_to(reports[0], fmt, options, write)


def _perfetto_beside(reports: Sequence[Report], fmt: str, output: Path | None) -> tuple[Path, str] | None:
    """`--format html -o PAGE.html`: the run's compile spans as PAGE.perfetto.json beside the page, for Perfetto
    (None: the page goes to stdout, there are several reports, or the trace logged no spans)."""
    if fmt != "html" or output is None or len(reports) != 1:
        return None
    from torchcompile_doctor.renderers._perfetto import perfetto_trace

    trace = perfetto_trace(reports[0])
    if trace is None:
        return None
    stem = output.stem if output.suffix.lower() in (".html", ".htm") else output.name
    return output.with_name(f"{stem}.perfetto.json"), trace


def _say_torch_outside_range(reports: Sequence[Report]) -> None:
    """A live run under a torch outside the supported releases says so on stderr (and in the report's notes)."""
    for note in dict.fromkeys(outside_range_note(report.torch_version) for report in reports):
        if note:
            typer.echo(f"doctor: {note}", err=True)


def _finish(
    run: pipeline.Run | pipeline.GatedRun,
    fmt: str,
    output: Path | None,
    *,
    show_guards: bool = False,
    live: bool = False,
) -> None:
    """Render, emit (the HTML page's Perfetto file too), and exit with the code the pipeline decided."""
    from torchcompile_doctor import pipeline

    if live:
        _say_torch_outside_range(run.reports)
    beside = _perfetto_beside(run.reports, fmt, output)
    perfetto_file = beside[0].name if beside else None
    _emit_parts(_rendered(run.reports, fmt, output, show_guards, perfetto_file), output)
    if beside is not None:
        _emit(beside[1], beside[0])
    raise typer.Exit(pipeline.exit_code(run))


def _status(message: str) -> contextlib.AbstractContextManager[object]:
    """A rich status line on stderr while the target runs, only on a TTY."""
    if not sys.stderr.isatty():
        return contextlib.nullcontext()
    from rich.console import Console

    return Console(stderr=True).status(message)


class _TrialLines:
    """One plain line on stderr per finished trial (stderr is not a terminal: CI, a log file)."""

    def started(self, total: int) -> None:
        pass

    def running(self, title: str) -> None:
        pass

    def finished(self, done: int, total: int, line: str) -> None:
        typer.echo(f"doctor: trial {done}/{total}: {line}", err=True)


class _TrialBar:
    """rich's progress on a terminal: trials done / total, the elapsed time, the change running now; each finished
    trial's line printed above it. Started at the first trial (the plain run's status line is rich's too)."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        self._bar = Progress(*columns, console=Console(stderr=True), transient=True)
        self._task = self._bar.add_task("trials", total=None)
        self._live = False

    def started(self, total: int) -> None:
        if not self._live:
            self._bar.start()
            self._live = True
        self._bar.update(self._task, total=total)

    def running(self, title: str) -> None:
        self._bar.update(self._task, description=f"measuring {title[:60]}")

    def finished(self, done: int, total: int, line: str) -> None:
        self._bar.update(self._task, completed=done, total=total)
        self._bar.console.print(f"trial {done}/{total}: {line}", markup=False, highlight=False)

    def stop(self) -> None:
        if self._live:
            self._bar.stop()


@contextlib.contextmanager
def _trial_progress(quiet: bool) -> Iterator[_TrialLines | _TrialBar | None]:
    """How trials are told on stderr: nothing with --quiet, a progress bar on a terminal, a line each otherwise."""
    if quiet:
        yield None
        return
    if not sys.stderr.isatty():
        yield _TrialLines()
        return
    bar = _TrialBar()
    try:
        yield bar
    finally:
        bar.stop()


def _status_unless(quiet: bool) -> Callable[[str], contextlib.AbstractContextManager[object]]:
    return (lambda message: contextlib.nullcontext()) if quiet else _status


def _version(value: bool) -> None:
    if value:
        typer.echo(f"torchcompile-doctor {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Show the version."),
) -> None:
    pass


@app.command(context_settings={"allow_extra_args": False})
@_one_line_errors
def explain(
    target: opt.ExplainTarget = None,
    args: opt.Args = None,
    module: opt.Module = None,
    inputs: opt.ExplainInputs = None,
    backend: opt.ExplainBackend = None,
    fmt: opt.Format = "terminal",
    output: opt.Output = None,
    artifacts: opt.Artifacts = None,
    timeout: opt.Timeout = None,
    fresh_inductor_cache: opt.FreshCache = False,
    try_fixes: opt.TryFixes = False,
    jobs: opt.Jobs = 2,
    nproc_per_node: opt.Ranks = None,
    quiet: opt.Quiet = False,
) -> None:
    """Run TARGET under capture and print the ranked report."""
    from torchcompile_doctor import pipeline
    from torchcompile_doctor.capture.capture_options import CaptureOptions
    from torchcompile_doctor.settings import TargetArgs, explain_settings

    settings = explain_settings(
        TargetArgs(target, tuple(args or ()), module, inputs),
        CaptureOptions(backend, timeout, fresh_inductor_cache, nproc_per_node),
        fmt=fmt,
        output=output,
        artifacts=artifacts,
        jobs=jobs,
        try_fixes=try_fixes,
    )
    run = pipeline.run(settings.target, settings.run, progress=_status_unless(quiet))
    if settings.try_fixes:
        with _trial_progress(quiet) as told:
            run = pipeline.try_fixes(run, settings.run, progress=_status_unless(quiet), trial_progress=told)
    _finish(run, settings.format, settings.output, live=True)


def _codes(values: list[str] | None) -> tuple[str, ...] | None:
    return tuple(c.strip().upper() for v in values for c in v.split(",") if c.strip()) if values else None


def _say_baseline(gated: pipeline.GatedRun, path: Path | None) -> None:
    """What --update-baseline did, on stderr (stdout carries only the report)."""
    if gated.baseline_refused:
        typer.echo("doctor: a target failed; the baseline was not updated", err=True)
    elif (update := gated.baseline_update) is not None:
        typer.echo(
            f"doctor: baseline {path} written: {update.added} added, "
            f"{update.pruned} fixed and pruned, {update.kept} kept",
            err=True,
        )


@app.command(context_settings={"allow_extra_args": False})
@_one_line_errors
def fix(
    target: opt.ExplainTarget = None,
    args: opt.Args = None,
    module: opt.Module = None,
    backend: opt.ExplainBackend = None,
    fmt: opt.FixFormat = "terminal",
    output: opt.Output = None,
    artifacts: opt.Artifacts = None,
    timeout: opt.Timeout = None,
    budget: opt.Budget = None,
    jobs: opt.FixJobs = 2,
    apply: opt.Apply = False,
    candidate: opt.Candidate = None,
    quiet: opt.Quiet = False,
) -> None:
    """Run TARGET, measure each fix its findings suggest in a copy of the project, and print the measured ones
    as a patch of your files (--apply writes it); --candidate PATCH measures your patch instead. Exit 0: a patch;
    1: no measured change helped; 3: TARGET failed."""
    from torchcompile_doctor import pipeline
    from torchcompile_doctor.capture.capture_options import CaptureOptions
    from torchcompile_doctor.fix.session import apply_fix
    from torchcompile_doctor.renderers.fix_report import render_fix
    from torchcompile_doctor.settings import TargetArgs, fix_settings

    settings = fix_settings(
        TargetArgs(target, tuple(args or ()), module),
        CaptureOptions(backend, timeout),
        budget_s=budget,
        apply=apply,
        fmt=fmt,
        output=output,
        artifacts=artifacts,
        jobs=jobs,
        candidate=candidate,
    )
    with _trial_progress(quiet) as told:
        report = pipeline.fix(
            settings.target,
            settings.run,
            settings.budget_s,
            settings.apply,
            progress=_status_unless(quiet),
            trial_progress=told,
            candidate=settings.candidate,
        )
    if settings.apply and report.found:
        report = apply_fix(report)
    _emit(render_fix(report, settings.format), settings.output)
    if report.failed:
        raise typer.Exit(ExitCode.TARGET_FAILED)
    raise typer.Exit(ExitCode.OK if report.found else ExitCode.GATE_FAILED)


@app.command(context_settings={"allow_extra_args": False})
@_one_line_errors
def check(
    target: opt.CheckTarget = None,
    args: opt.Args = None,
    module: opt.Module = None,
    inputs: opt.Inputs = None,
    from_capture: opt.FromCapture = None,
    config: opt.Config = None,
    fullgraph: opt.Fullgraph = None,
    max_graph_breaks: opt.MaxBreaks = None,
    max_recompiles: opt.MaxRecompiles = None,
    fail_on: opt.FailOn = None,
    baseline: opt.BaselineFile = None,
    update_baseline: opt.UpdateBaseline = False,
    select: opt.Select = None,
    ignore: opt.Ignore = None,
    backend: opt.Backend = None,
    fmt: opt.CheckFormat = None,
    output: opt.Output = None,
    timeout: opt.CheckTimeout = None,
    nproc_per_node: opt.CheckRanks = None,
) -> None:
    """CI gate: run the targets (or gate a kept capture: --from-capture DIR), then exit 0 (passed),
    1 (the gate failed), 2 (usage) or 3 (a target failed)."""
    from torchcompile_doctor import pipeline
    from torchcompile_doctor.settings import CheckFlags, TargetArgs, check_settings

    flags = CheckFlags(
        fullgraph=fullgraph,
        max_graph_breaks=max_graph_breaks,
        max_recompiles=max_recompiles,
        fail_on=fail_on,
        baseline=baseline,
        update_baseline=update_baseline,
        select=_codes(select),
        ignore=_codes(ignore),
        backend=backend,
        format=fmt,
        output=output,
        timeout=timeout,
        nproc_per_node=nproc_per_node,
    )
    settings = check_settings(TargetArgs(target, tuple(args or ()), module, inputs), flags, config, from_capture)
    known = pipeline.open_baseline(settings.gate)  # a bad baseline fails before anything runs
    if settings.from_capture is not None:  # as `doctor report` reads it (a job's text log too)
        run = pipeline.reread_paths([settings.from_capture], pipeline.RereadOptions(as_live=True))
    else:
        run = pipeline.run_all(settings.targets, settings.run, progress=_status)
    gated = pipeline.gate(run, settings.gate, known)
    _say_baseline(gated, settings.gate.baseline)
    _finish(gated, settings.format, settings.output, live=settings.from_capture is None)


@app.command()
@_one_line_errors
def guards(
    target: opt.GuardsTarget = None,
    args: opt.Args = None,
    module: opt.Module = None,
    inputs: opt.Inputs = None,
    dump: opt.Dump = None,
    backend: opt.Backend = None,
    fmt: opt.Format = "terminal",
    output: opt.Output = None,
    artifacts: opt.Artifacts = None,
    timeout: opt.Timeout = None,
) -> None:
    """What each compiled frame is guarded on, what it costs per call, and what changed between entries."""
    from torchcompile_doctor import pipeline
    from torchcompile_doctor.capture.capture_options import CaptureOptions
    from torchcompile_doctor.settings import RereadSettings, TargetArgs, guards_settings

    settings = guards_settings(
        TargetArgs(target, tuple(args or ()), module, inputs),
        CaptureOptions(backend, timeout, dump_dir=dump),
        fmt=fmt,
        output=output,
        artifacts=artifacts,
    )
    if isinstance(settings, RereadSettings):
        run = pipeline.reread(settings.paths[0], settings.reread)
    else:
        run = pipeline.run(settings.target, settings.run, progress=_status)
    _finish(run, settings.format, settings.output, show_guards=True, live=not isinstance(settings, RereadSettings))


@app.command()
@_one_line_errors
def report(
    path: opt.ReportPath,
    fmt: opt.Format = "terminal",
    output: opt.Output = None,
    root: opt.Root = None,
    strict: opt.Strict = False,
) -> None:
    """Re-render the report from an existing capture or TORCH_TRACE dir (rank files merged), and/or a job's
    text log under TORCH_LOGS (gzipped or not); no torch needed."""
    from torchcompile_doctor import pipeline
    from torchcompile_doctor.settings import reread_settings

    read = reread_settings(tuple(path), pipeline.RereadOptions(root=root, strict=strict), fmt=fmt, output=output)
    with _collector_paused():
        _finish(pipeline.reread_paths(read.paths, read.reread), read.format, read.output)


@app.command()
@_one_line_errors
def rules(fmt: opt.RulesFormat = "terminal") -> None:
    """The rule catalogue: code, name, severity, status."""
    from torchcompile_doctor.rules import load_catalogue
    from torchcompile_doctor.rules.rule_page import rules_listing

    typer.echo(rules_listing(load_catalogue(), fmt))


@app.command()
@_one_line_errors
def rule(code: opt.RuleCode) -> None:
    """One rule's full explanation."""
    from torchcompile_doctor.rules import load_catalogue
    from torchcompile_doctor.rules.rule_page import rule_page

    typer.echo(rule_page(code.strip().upper(), load_catalogue(), with_detector=True))


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """The garbage collector off while a capture is read, analysed and rendered: the events and the report are
    freed by reference counts, and the collector's passes over the growing heap (0.04-0.08 s of a big trace's
    report) freed some 3,900 small cycles in all, left to its next pass; its state restored after, for a caller
    that runs main() in-process."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@functools.cache  # once per process, however many times main() runs in it (the tests call it in-process)
def _skip_the_last_collection() -> None:
    """At exit the interpreter's last garbage collection walks every object the command made (a big log's events,
    the report) to free memory the process is about to hand back: frozen by an exit hook, they are left to the
    operating system (0.05-0.15 s of a big trace's report). Other exit hooks, stdout and the files written
    (closed by then) are as before. A process that calls main() in-process (the tests) gets the hook too: its own
    exit skips that walk."""
    atexit.register(gc.freeze)


def main() -> None:
    _skip_the_last_collection()
    try:
        app()
    except KeyboardInterrupt:
        typer.echo("doctor: interrupted", err=True)
        sys.exit(ExitCode.INTERRUPTED)
    except Exception as error:  # a bug of ours: one line, the traceback only on request
        if os.environ.get("DOCTOR_DEBUG"):
            raise
        typer.echo(f"doctor: internal error: {type(error).__name__}: {error} (DOCTOR_DEBUG=1 shows where)", err=True)
        sys.exit(ExitCode.USAGE)
