"""The command line (typer only): options -> Settings -> pipeline -> renderer -> exit code.

Never imports torch: only the capture child does.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import typer

from torchcompile_doctor import __version__
from torchcompile_doctor.errors import DoctorError
from torchcompile_doctor.exit_codes import ExitCode
from torchcompile_doctor.renderers import FORMATS as REPORT_FORMATS
from torchcompile_doctor.settings import ExplainSettings, check_output_path

app = typer.Typer(
    name="doctor",
    help="Explains what torch.compile did to your program: graph breaks, recompiles, fallbacks to eager.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _fail(message: str, code: int = ExitCode.USAGE) -> None:
    typer.echo(f"doctor: error: {message}", err=True)
    raise typer.Exit(code)


def _one_line_errors(command):
    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except DoctorError as error:
            _fail(str(error).strip().splitlines()[0] if str(error).strip() else "error")

    return wrapper


def _emit(text: str, output: Path | None) -> None:
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as error:
        raise DoctorError(f"cannot write --output {output}: {error.strerror}") from None


def _render(report, fmt: str, output: Path | None, *, show_guards: bool = False) -> str:
    """The outside world a renderer may depend on (the tty, NO_COLOR, the width, the cwd), read here only."""
    from torchcompile_doctor.renderers import RenderOptions, render, render_all

    color = fmt == "terminal" and output is None and sys.stdout.isatty() and "NO_COLOR" not in os.environ
    width = shutil.get_terminal_size((110, 24)).columns if color else 110
    options = RenderOptions(color=color, width=width, base_dir=os.getcwd(), show_guards=show_guards)
    if isinstance(report, list | tuple):
        return render_all(report, fmt, options)
    return render(report, fmt, options)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"torchcompile-doctor {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Show the version."),
) -> None:
    pass


FORMAT_HELP = f"Report format: {', '.join(REPORT_FORMATS)}."


@app.command(context_settings={"allow_extra_args": False})
@_one_line_errors
def explain(
    target: str | None = typer.Argument(
        None, help="A script (train.py), or file.py:function with --inputs. Arguments after `--` go to the script."
    ),
    args: list[str] | None = typer.Argument(None, help="Arguments for the target (after `--`).", show_default=False),
    module: str | None = typer.Option(None, "-m", "--module", help="Run a module as `python -m MODULE`."),
    inputs: str | None = typer.Option(
        None, "--inputs", help="file.py:function returning the example inputs (a tuple)."
    ),
    backend: str | None = typer.Option(
        None, "--backend", help="Override every torch.compile backend (eager / aot_eager: findings seconds sooner)."
    ),
    fmt: str = typer.Option("terminal", "--format", "-f", help=FORMAT_HELP),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write the report here instead of stdout."),
    artifacts: Path | None = typer.Option(
        None, "--artifacts", help="Keep the capture (TORCH_TRACE logs + side channel) in this directory."
    ),
    timeout: float | None = typer.Option(None, "--timeout", help="Stop the target after this many seconds."),
    fresh_inductor_cache: bool = typer.Option(
        False, "--fresh-inductor-cache", help="Compile with an empty inductor cache (cached graphs log no perf hints)."
    ),
    try_fixes: bool = typer.Option(
        False, "--try-fixes", help="Re-run with each suggested config fix and report its measured effect."
    ),
    jobs: int = typer.Option(2, "--jobs", "-j", help="Experiments run side by side with --try-fixes."),
    nproc_per_node: int | None = typer.Option(
        None,
        "--nproc-per-node",
        min=1,
        help="Run TARGET under torchrun with N ranks (one trace per rank, one merged report).",
    ),
) -> None:
    """Run TARGET under capture and print the ranked report."""
    settings = ExplainSettings.from_cli(
        target,
        list(args or []),
        module,
        inputs,
        backend,
        fmt,
        output,
        artifacts,
        timeout,
        fresh_inductor_cache,
        try_fixes,
        jobs,
    )
    check_output_path(settings.output)
    if nproc_per_node is not None and settings.try_fixes:
        raise DoctorError("--try-fixes does not run under --nproc-per-node yet; run the fixes on one process")

    workdir = settings.artifacts or Path(tempfile.mkdtemp(prefix="torchcompile-doctor-"))
    try:
        if settings.artifacts is not None:
            workdir.mkdir(parents=True, exist_ok=True)
        ranks = f" on {nproc_per_node} ranks (torchrun)" if nproc_per_node else ""
        with _status(f"running {settings.target.display} under torch.compile capture{ranks}"):
            result, report = _capture_and_analyze(settings, workdir, nproc_per_node=nproc_per_node)
        if settings.try_fixes and not result.interrupted:
            report = _try_fixes(settings, workdir, report)
        _emit(_render(report, settings.format, settings.output), settings.output)
    finally:
        if settings.artifacts is None:
            shutil.rmtree(workdir, ignore_errors=True)
    raise typer.Exit(_exit_code([result], [report]))


@app.command(context_settings={"allow_extra_args": False})
@_one_line_errors
def check(
    target: str | None = typer.Argument(
        None, help="A script, -m MODULE or file.py:function (default: the `targets` of the config file)."
    ),
    args: list[str] | None = typer.Argument(None, help="Arguments for the target (after `--`).", show_default=False),
    module: str | None = typer.Option(None, "-m", "--module", help="Run a module as `python -m MODULE`."),
    inputs: str | None = typer.Option(None, "--inputs", help="file.py:function returning the example inputs."),
    config: Path | None = typer.Option(
        None,
        "--config",
        help="Config file (default: [tool.torchcompile-doctor] in pyproject.toml or "
        ".torchcompile-doctor.yaml, from the target's directory upward).",
    ),
    fullgraph: bool | None = typer.Option(
        None, "--fullgraph/--no-fullgraph", help="Fail on any graph break or compile failure."
    ),
    max_graph_breaks: int | None = typer.Option(None, "--max-graph-breaks", min=0, help="Fail above this many."),
    max_recompiles: int | None = typer.Option(None, "--max-recompiles", min=0, help="Fail above this many."),
    fail_on: str | None = typer.Option(
        None, "--fail-on", help="Fail on findings of this severity or worse: critical, high, medium, low, info."
    ),
    baseline: Path | None = typer.Option(None, "--baseline", help="Only findings not in this baseline fail."),
    update_baseline: bool = typer.Option(
        False, "--update-baseline", help="Write the current findings as the baseline (fixed ones are pruned)."
    ),
    select: list[str] | None = typer.Option(None, "--select", help="Only these rule codes or prefixes (TCD1)."),
    ignore: list[str] | None = typer.Option(None, "--ignore", help="Leave out these rule codes or prefixes."),
    backend: str | None = typer.Option(None, "--backend", help="Override every torch.compile backend."),
    fmt: str | None = typer.Option(None, "--format", "-f", help=FORMAT_HELP),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write the report here instead of stdout."),
    timeout: float | None = typer.Option(None, "--timeout", help="Stop each target after this many seconds."),
    nproc_per_node: int | None = typer.Option(
        None, "--nproc-per-node", min=1, help="Run each target under torchrun with N ranks (merged report)."
    ),
) -> None:
    """CI gate: run the targets, then exit 0 (passed), 1 (the gate failed), 2 (usage) or 3 (a target failed)."""
    from torchcompile_doctor.analysis.gate import apply_gate, select_findings
    from torchcompile_doctor.baseline import known_findings, read_baseline, updated_document, write_baseline
    from torchcompile_doctor.settings import check_settings

    def codes(values: list[str] | None) -> list[str] | None:
        return [c.strip().upper() for v in values for c in v.split(",") if c.strip()] if values else None

    flags = {
        "fullgraph": fullgraph,
        "max-graph-breaks": max_graph_breaks,
        "max-recompiles": max_recompiles,
        "fail-on": fail_on,
        "baseline": baseline,
        "update-baseline": update_baseline,
        "select": codes(select),
        "ignore": codes(ignore),
        "backend": backend,
        "format": fmt,
        "output": output,
        "timeout": timeout,
        "nproc-per-node": nproc_per_node,
    }
    settings = check_settings(target, list(args or []), module, inputs, config, flags)
    check_output_path(settings.output)
    known_file = None
    if settings.baseline is not None and settings.baseline.exists():
        known_file = read_baseline(settings.baseline)
    elif settings.baseline is not None and not settings.update_baseline:
        raise DoctorError(f"baseline {settings.baseline} does not exist; create it with --update-baseline")

    results, reports = [], []
    for spec in settings.targets:
        workdir = Path(tempfile.mkdtemp(prefix="torchcompile-doctor-"))
        try:
            with _status(f"checking {spec.display}"):
                result, report_ = _capture_and_analyze(
                    settings.explain_settings(spec), workdir, nproc_per_node=settings.nproc_per_node
                )
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        results.append(result)
        reports.append(select_findings(report_, settings.select, settings.ignore))
        if result.interrupted:
            break

    updated = None
    if settings.update_baseline:
        if _exit_code(results, reports) != ExitCode.OK:
            typer.echo("doctor: a target failed; the baseline was not updated", err=True)
        else:
            from torchcompile_doctor.baseline import Baseline

            document, updated = updated_document(known_file, reports, settings.baseline.parent)
            write_baseline(settings.baseline, document)
            known_file = Baseline(settings.baseline, document["torch"])
            typer.echo(
                f"doctor: baseline {settings.baseline} written: {updated['added']} added, "
                f"{updated['pruned']} fixed and pruned, {updated['kept']} kept",
                err=True,
            )
    gated = []
    for report_ in reports:
        known, info = known_findings(known_file, report_) if known_file else ({}, None)
        if info is not None and updated is not None:
            info["updated"] = updated
        gated.append(apply_gate(report_, settings.gate, known, info))
    _emit(_render(gated if len(gated) > 1 else gated[0], settings.format, settings.output), settings.output)
    raise typer.Exit(_exit_code(results, gated))


def _exit_code(results, reports) -> int:
    """The one place that decides: 130 Ctrl-C; 3 a target failed (its report still came out);
    1 `doctor check`'s gate failed; 0 otherwise."""
    if any(result.interrupted for result in results):
        return ExitCode.INTERRUPTED
    if not all(r.target_succeeded for r in reports):
        return ExitCode.TARGET_FAILED
    if any(r.gate is not None and not r.gate.passed for r in reports):
        return ExitCode.GATE_FAILED
    return ExitCode.OK


def _offline_context(log, path: Path, root: Path | None = None):
    """Where a kept capture's code lives: --root, else the target's directory as recorded, else here."""
    from torchcompile_doctor.analysis import AnalysisContext

    target = log.bootstrap[-1].target if log.bootstrap else str(path)
    base = root or (Path(target).parent if log.bootstrap and Path(target).is_absolute() else Path.cwd())
    return AnalysisContext(target=target, root=str(base.resolve()), offline=True)


def _capture_and_analyze(
    settings: ExplainSettings,
    workdir: Path,
    experiment: dict | None = None,
    measure_guards: bool = False,
    dump_dir: Path | None = None,
    nproc_per_node: int | None = None,
):
    from torchcompile_doctor.analysis import AnalysisContext, RunOutcome, analyze
    from torchcompile_doctor.analysis.ranks import analyze_ranks
    from torchcompile_doctor.capture.runner import run_capture
    from torchcompile_doctor.events.load import load_artifacts, load_ranks

    result = run_capture(
        settings.target,
        workdir,
        settings.backend,
        settings.timeout_s,
        settings.fresh_inductor_cache,
        experiment,
        measure_guards,
        dump_dir,
        nproc_per_node,
    )
    # torchrun: one log per rank, merged in analysis; one process: every trace file is that process's
    logs = load_ranks(workdir).logs if nproc_per_node is not None else {0: load_artifacts(workdir)}
    usage = next((e for log in logs.values() for e in log.target_exits if e.status == "usage_error"), None)
    if usage is not None:
        raise DoctorError(usage.message or "the target cannot be run as given")
    outcome = RunOutcome(result.returncode, result.signal, result.timed_out, result.interrupted, settings.timeout_s)
    context = AnalysisContext(target=settings.target.display, root=settings.target.root, outcome=outcome)
    if nproc_per_node is None:
        return result, analyze(logs[0], context)
    return result, analyze_ranks(logs, context)


def _try_fixes(settings: ExplainSettings, workdir: Path, report):
    """Re-run the target once per suggested no-code-change fix, side by side within --jobs."""
    from concurrent.futures import ThreadPoolExecutor

    from torchcompile_doctor.rules import experiments

    planned = experiments.plan(report)

    def run_one(numbered):
        index, experiment = numbered
        try:
            return experiments.experiment_key(experiment), _capture_and_analyze(
                settings, workdir / "experiments" / str(index), experiment
            )[1]
        except DoctorError as error:
            return experiments.experiment_key(experiment), str(error)

    with _status(f"trying {len(planned)} fix(es), {settings.jobs} at a time"):
        with ThreadPoolExecutor(max_workers=settings.jobs) as pool:
            results = dict(pool.map(run_one, enumerate(planned)))
    return experiments.attach(report, results)


@app.command()
@_one_line_errors
def guards(
    target: str | None = typer.Argument(None, help="A script to run (omit it to read an existing --dump DIR)."),
    args: list[str] | None = typer.Argument(None, help="Arguments for the target (after `--`).", show_default=False),
    module: str | None = typer.Option(None, "-m", "--module", help="Run a module as `python -m MODULE`."),
    inputs: str | None = typer.Option(None, "--inputs", help="file.py:function returning the example inputs."),
    dump: Path | None = typer.Option(
        None, "--dump", help="depyf dump dir: written while TARGET runs, or read when no TARGET is given."
    ),
    backend: str | None = typer.Option(None, "--backend", help="Override every torch.compile backend."),
    fmt: str = typer.Option("terminal", "--format", "-f", help=FORMAT_HELP),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write the report here instead of stdout."),
    timeout: float | None = typer.Option(None, "--timeout", help="Stop the target after this many seconds."),
) -> None:
    """What each compiled frame is guarded on, what it costs per call, and what changed between entries."""
    from torchcompile_doctor.settings import check_format

    check_format(fmt)
    check_output_path(output)
    if target is None and module is None:
        if dump is None:
            raise DoctorError("give a TARGET to run, or --dump DIR to read an existing dump")
        _emit(_render(_read_dump_report(dump), fmt, output, show_guards=True), output)
        return
    settings = ExplainSettings.from_cli(target, list(args or []), module, inputs, backend, fmt, output, None, timeout)
    workdir = Path(tempfile.mkdtemp(prefix="torchcompile-doctor-"))
    try:
        if dump is not None:
            dump.mkdir(parents=True, exist_ok=True)
        with _status(f"running {settings.target.display} and timing its guards"):
            result, report = _capture_and_analyze(settings, workdir, measure_guards=True, dump_dir=dump)
        if dump is not None:  # the guard trees travel with the dump, so reading it later is complete
            from torchcompile_doctor.dumps.layout import CAPTURE_IN_DUMP

            shutil.copytree(workdir, dump / CAPTURE_IN_DUMP, dirs_exist_ok=True)
        _emit(_render(report, settings.format, settings.output, show_guards=True), settings.output)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    raise typer.Exit(_exit_code([result], [report]))


def _read_dump_report(dump: Path):
    """A dump made by `doctor guards TARGET --dump DIR` carries the full capture; a plain depyf dump only
    its root-level guards (torch 2.13), analysed with a warning. Nothing in it is imported or run."""
    from torchcompile_doctor.analysis import analyze
    from torchcompile_doctor.events.load import load_dump

    if not dump.is_dir():
        raise DoctorError(f"--dump {dump} is not a directory")
    log = load_dump(dump)
    return analyze(log, _offline_context(log, dump))


@app.command()
@_one_line_errors
def report(
    path: Path = typer.Argument(..., help="A kept --artifacts dir, a TORCH_TRACE dir, or one trace log."),
    fmt: str = typer.Option("terminal", "--format", "-f", help=FORMAT_HELP),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write the report here instead of stdout."),
    root: Path | None = typer.Option(None, "--root", help="The directory of your code (for relative paths)."),
    strict: bool = typer.Option(
        False, "--strict", help="Fail (exit 2) on truncated files, bad lines, md5 mismatches or unknown event kinds."
    ),
) -> None:
    """Re-render the report from an existing capture or TORCH_TRACE dir (rank files merged); no torch needed."""
    from torchcompile_doctor.analysis.ranks import analyze_ranks
    from torchcompile_doctor.events.load import load_ranks
    from torchcompile_doctor.settings import check_format

    check_format(fmt)
    check_output_path(output)
    if not path.exists():
        raise DoctorError(f"no such file or directory: {path}")
    loaded = load_ranks(path)
    if strict:
        several = len(loaded.logs) > 1
        problems = [
            f"rank {rank}: {log.health.describe()}" if several else log.health.describe()
            for rank, log in loaded.logs.items()
            if log.health.describe()
        ]
        problems += [f"{file.name} names no rank" for file in loaded.unranked]
        if problems:
            found = "; ".join(problems)
            raise DoctorError(f"--strict: the logs have problems: {found} (drop --strict to read past them)")
    first = next(iter(loaded.logs.values()))
    unranked = [str(file) for file in loaded.unranked]
    report_ = analyze_ranks(loaded.logs, _offline_context(first, path, root), unranked=unranked)
    _emit(_render(report_, fmt, output), output)


@app.command()
@_one_line_errors
def rules(fmt: str = typer.Option("terminal", "--format", "-f", help="terminal or json.")) -> None:
    """The rule catalogue: code, name, severity, status."""
    from torchcompile_doctor.rules import load_catalogue

    catalogue = load_catalogue()
    if fmt == "json":
        rows = [
            {
                "code": r.code,
                "name": r.name,
                "kind": r.kind,
                "severity": r.severity,
                "status": r.status,
                "title": r.title,
            }
            for r in catalogue
        ]
        typer.echo(json.dumps(rows, indent=2))
        return
    if fmt != "terminal":
        raise DoctorError(f"unknown --format {fmt!r} for rules (terminal or json)")
    for r in catalogue:
        typer.echo(f"{r.code}  {r.name:32} {r.severity:9} {r.status:8} {r.title}")


@app.command()
@_one_line_errors
def rule(code: str = typer.Argument(..., help="A rule code (TCD104) or a GB id (GB0124).")) -> None:
    """One rule's full explanation."""
    from torchcompile_doctor.rules import load_catalogue
    from torchcompile_doctor.rules.explain import explain_rule

    typer.echo(explain_rule(code.strip().upper(), load_catalogue()))


def _status(message: str):
    """A rich status line on stderr while the target runs, only on a TTY."""
    if not sys.stderr.isatty():
        return contextlib.nullcontext()
    from rich.console import Console

    return Console(stderr=True).status(message)


def main() -> None:
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
