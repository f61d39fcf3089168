"""The one place the stages meet: capture -> events -> analysis -> Report, then the gate and verified fixes.

The CLI and the Python API (and through it the pytest plugin) call these functions and nothing deeper:

    run(target, options) -> Run           capture a target (one process, or N ranks under torchrun) and analyse it
    run_all(targets, options) -> Run      `doctor check`: each target in turn, stopping at Ctrl-C
    run_block(label)                      capture what torch.compile does inside a `with` block, in this process
    reread(path, options) -> Run          a kept capture, a TORCH_TRACE dir (ranks merged) or a depyf dump
    try_fixes(run, options) -> Run        re-run once per suggested no-code-change fix; measured effects on the fixes
    fix(target, options, budget) -> FixReport   `doctor fix`: candidate fixes measured in trial copies, the patch
    open_baseline(options) -> Baseline    the baseline file, read and checked before anything runs
    gate(run, options, baseline) -> GatedRun   select/ignore, the baseline (rewritten when asked), the verdict
    exit_code(run) -> ExitCode            the one place that decides the exit status

Options and results are frozen. Nothing here imports torch: a capture runs in a child process, and the
in-process capture (`run_block`) is imported only when it runs.
"""

from __future__ import annotations

import contextlib
import gzip
import shutil
import time
import zlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from torchcompile_doctor.capture.capture_options import CaptureOptions
from torchcompile_doctor.capture_layout import CAPTURE_IN_DUMP, CaptureFolder
from torchcompile_doctor.errors import DoctorError
from torchcompile_doctor.exit_codes import ExitCode
from torchcompile_doctor.model.gate import BaselineUpdate, GateCriteria

if TYPE_CHECKING:  # the analysis stage and the capture are imported when a run needs them: `doctor --help` is quick
    from torchcompile_doctor.analysis import AnalysisContext
    from torchcompile_doctor.capture.target import TargetSpec
    from torchcompile_doctor.capture.warm import WarmProcesses
    from torchcompile_doctor.events.load import RankLogs
    from torchcompile_doctor.events.model import EventLog, RunOutcome
    from torchcompile_doctor.fix.trials import TrialProgress
    from torchcompile_doctor.gate.baseline import Baseline
    from torchcompile_doctor.model.experiment import Experiment
    from torchcompile_doctor.model.fix import FixReport
    from torchcompile_doctor.model.report import Report
    from torchcompile_doctor.model.trial import RunResult

Progress = Callable[[str], AbstractContextManager[object]]
"""Shows what is running (the CLI: a status line on a TTY) for as long as the context is open."""


def _quiet(message: str) -> AbstractContextManager[object]:
    return contextlib.nullcontext()


@dataclass(frozen=True)
class RunOptions:
    """How to run a target: how to capture it (capture/runner.py's options: backend, timeout, ranks, guard timing,
    a depyf dump), where to keep the capture, how many experiments try_fixes runs side by side."""

    capture: CaptureOptions = field(default_factory=CaptureOptions)
    artifacts: Path | None = None  # keep the capture here; None: a temp dir, removed afterwards
    jobs: int = 2  # experiments run side by side by try_fixes


@dataclass(frozen=True)
class RereadOptions:
    """How to read back what an earlier run left."""

    root: Path | None = None  # the directory of the user's code (default: the target's, as recorded)
    strict: bool = False  # damaged logs are an error instead of a note
    dump: bool = False  # the path is a depyf dump (`doctor guards --dump DIR`), not a capture or TORCH_TRACE dir
    # `doctor check --from-capture`: the report the live run gave. The graph-break registry is named only when
    # it may not be the one that run used (the capture's torch is not the installed one); `doctor report` names it
    as_live: bool = False


@dataclass(frozen=True)
class GateOptions:
    """What `doctor check` (and `expect`) gate on."""

    criteria: GateCriteria = field(default_factory=lambda: GateCriteria().or_default())
    select: tuple[str, ...] = ()  # only these rule codes or prefixes
    ignore: tuple[str, ...] = ()  # leave these out
    baseline: Path | None = None  # the baseline file (read, and written with update_baseline)
    update_baseline: bool = False


def _only_report(reports: tuple[Report, ...]) -> Report:
    if len(reports) != 1:
        raise ValueError(f"a run of {len(reports)} targets has no single report")
    return reports[0]


@dataclass(frozen=True)
class Run:
    """What a run produced: a report per target, and how each capture ended."""

    reports: tuple[Report, ...]
    outcomes: tuple[RunOutcome, ...] = ()  # as the parent saw each capture end; empty for a re-read
    targets: tuple[TargetSpec, ...] = ()  # what was run (try_fixes runs it again); empty for a re-read

    @property
    def report(self) -> Report:
        """The report of a run of one target."""
        return _only_report(self.reports)

    @property
    def interrupted(self) -> bool:
        """Ctrl-C (or SIGTERM) stopped a capture; what was captured up to then is reported."""
        return any(outcome.interrupted for outcome in self.outcomes)


@dataclass(frozen=True)
class GatedRun:
    """A run with the gate's verdict on each report (after select/ignore)."""

    run: Run
    reports: tuple[Report, ...]
    baseline_update: BaselineUpdate | None = None  # what --update-baseline wrote
    baseline_refused: bool = False  # --update-baseline left the file alone: a target failed

    @property
    def report(self) -> Report:
        return _only_report(self.reports)

    @property
    def interrupted(self) -> bool:
        return self.run.interrupted


# ---------------------------------------------------------------------------------------------- capture


def _capture_and_analyze(
    target: TargetSpec,
    options: RunOptions,
    workdir: Path,
    experiment: Experiment | None = None,
    warm: WarmProcesses | None = None,
) -> tuple[RunOutcome, Report]:
    from torchcompile_doctor.analysis import AnalysisContext, analyze, report_of_processes, report_of_ranks
    from torchcompile_doctor.capture.runner import run_capture
    from torchcompile_doctor.events.load import load_ranks
    from torchcompile_doctor.events.processes import load_processes
    from torchcompile_doctor.source_files import RecordingSources, write_snapshot

    capture = replace(options.capture, experiment=experiment) if experiment is not None else options.capture
    outcome = run_capture(target, workdir, capture, warm)
    # torchrun: one log per rank, merged in analysis; one target: its processes (one log unless several compiled)
    program = load_processes(workdir) if capture.nproc_per_node is None else None
    logs = program.logs if program is not None else load_ranks(workdir).logs
    usage = next((e for log in logs.values() for e in log.target_exits if e.status == "usage_error"), None)
    if usage is not None:
        raise DoctorError(usage.message or "the target cannot be run as given")
    sources = RecordingSources()
    context = AnalysisContext(
        target=target.display,
        root=target.root,
        outcome=outcome,
        read_source=sources.read,
        is_install_dir=sources.is_install_dir,
    )
    if list(logs) == [0]:
        report = analyze(logs[0], context)
    elif program is not None and not program.are_ranks:  # a program's processes may differ by design
        report = report_of_processes(logs, context)
    else:
        report = report_of_ranks(logs, context)
    write_snapshot(sources.snapshot, workdir)  # `doctor report` on the kept capture reads the code as it was now
    return outcome, report


def _running(target: TargetSpec, options: RunOptions) -> str:
    if options.capture.measure_guards:
        return f"running {target.display} and timing its guards"
    ranks = options.capture.nproc_per_node
    return f"running {target.display} under torch.compile capture" + (f" on {ranks} ranks (torchrun)" if ranks else "")


def _capture(target: TargetSpec, options: RunOptions, message: str, progress: Progress) -> Run:
    from torchcompile_doctor.capture.runner import capture_folder

    dump_dir = options.capture.dump_dir
    if dump_dir is not None:
        dump_dir.mkdir(parents=True, exist_ok=True)
    with capture_folder(options.artifacts) as workdir:
        with progress(message):
            outcome, report = _capture_and_analyze(target, options, workdir)
        if dump_dir is not None:  # the guard trees travel with the dump, so reading it later is complete
            shutil.copytree(workdir, dump_dir / CAPTURE_IN_DUMP, dirs_exist_ok=True)
    return Run((report,), (outcome,), (target,))


def run(target: TargetSpec, options: RunOptions, progress: Progress = _quiet) -> Run:
    """Capture `target` in a child process (torchrun with options.capture.nproc_per_node) and analyse it."""
    return _capture(target, options, _running(target, options), progress)


def run_all(targets: Sequence[TargetSpec], options: RunOptions, progress: Progress = _quiet) -> Run:
    """Each target in turn (`doctor check`), one report each; a Ctrl-C stops the rest."""
    runs: list[Run] = []
    for target in targets:
        runs.append(_capture(target, options, f"checking {target.display}", progress))
        if runs[-1].interrupted:
            break
    return Run(
        reports=tuple(report for one in runs for report in one.reports),
        outcomes=tuple(outcome for one in runs for outcome in one.outcomes),
        targets=tuple(target for one in runs for target in one.targets),
    )


@dataclass
class BlockRun:
    """What `run_block` yields: the run, once the block has finished without raising."""

    finished: Run | None = None

    @property
    def run(self) -> Run:
        if self.finished is None:
            raise RuntimeError("the block has not finished")
        return self.finished


@contextlib.contextmanager
def run_block(label: str) -> Iterator[BlockRun]:
    """Capture what torch.compile does inside the `with` block, in this process (torch's structured
    trace, as TORCH_TRACE writes it), and analyse it when the block ends. An exception passes through."""
    import os

    from torchcompile_doctor.analysis import AnalysisContext, analyze
    from torchcompile_doctor.capture.inprocess import TraceCapture
    from torchcompile_doctor.events.model import RunOutcome

    block = BlockRun()
    capture = TraceCapture()
    try:
        with capture:
            yield block
        outcome = RunOutcome(returncode=0)
        report = analyze(capture.log(), AnalysisContext(target=label, root=os.getcwd(), outcome=outcome))
        block.finished = Run((report,), (outcome,))
    finally:
        capture.cleanup()


# ---------------------------------------------------------------------------------------------- re-read


def _offline_context(log: EventLog, path: Path, root: Path | None = None, as_live: bool = False) -> AnalysisContext:
    """Where a kept capture's code lives: --root, else the target's directory as recorded, else here; its
    lines come from the capture's source snapshot where it has them (the code as it was when it ran), else from
    the disk, used only where a file still says what the trace recorded of it. The graph-break registry is that of
    the torch that made the capture (graph_break_registry.registry_for_capture)."""
    from torchcompile_doctor.analysis import AnalysisContext
    from torchcompile_doctor.analysis.analyze import recorded_torch_version
    from torchcompile_doctor.analysis.graph_break_registry import registry_for_capture
    from torchcompile_doctor.source_files import snapshot_sources

    target = log.bootstrap[-1].target if log.bootstrap else str(path)
    base = root or (Path(target).parent if log.bootstrap and Path(target).is_absolute() else Path.cwd())
    name_registry = not (as_live and _captured_by_installed_torch(log))
    sources = snapshot_sources(path if path.is_dir() else path.parent)
    return AnalysisContext(
        target=target,
        root=str(base.resolve()),
        registry=registry_for_capture(recorded_torch_version(log)),
        offline=name_registry,
        read_source=sources.read,
        is_install_dir=sources.is_install_dir,
        check_sources=True,
        snapshot_files=sources.kept,
    )


def _captured_by_installed_torch(log: EventLog) -> bool:
    """The log was written by the torch installed here (same build), so its graph-break registry is this one's."""
    from torchcompile_doctor.analysis.analyze import recorded_torch_version
    from torchcompile_doctor.torch_releases import installed_torch_version

    recorded, installed = recorded_torch_version(log), installed_torch_version()
    if recorded is None or installed is None:
        return False
    # the capture records the distribution's version (2.15.0 for the CUDA wheel from PyPI), the installed torch is
    # read from its version.py, which carries the build's local part (2.15.0+cu132): the same torch
    return recorded.split("+")[0] == installed.split("+")[0]


def _dump_report(dump: Path, root: Path | None = None) -> Report:
    """A depyf dump is one more event source: the capture `doctor guards TARGET --dump DIR` copied into it,
    else the dump's own guard functions (root-level only on torch 2.13, said in a warning). Nothing in it is
    imported or run."""
    from torchcompile_doctor.analysis import analyze
    from torchcompile_doctor.events.dumps.source import load_dump
    from torchcompile_doctor.events.load import refuse_nothing_read

    log = load_dump(dump)
    refuse_nothing_read([log], [dump])
    return analyze(log, _offline_context(log, dump / CAPTURE_IN_DUMP, root))


def _strict(loaded: RankLogs, options: RereadOptions) -> None:
    """--strict: damaged logs are an error (one line naming each problem)."""
    if not options.strict:
        return
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


def _trace_report(path: Path, options: RereadOptions, text_logs: Sequence[Path] = ()) -> Report:
    """A kept capture or TORCH_TRACE dir (or one trace file), rank files merged into one report; with the text
    logs of the same run, what they add (CUDA graphs, warnings, perf hints) counted once with the trace."""
    from torchcompile_doctor.analysis import report_of_processes, report_of_ranks
    from torchcompile_doctor.events.load import RankLogs, load_ranks, refuse_nothing_read
    from torchcompile_doctor.events.processes import is_target_capture, load_processes

    if not path.exists():
        raise DoctorError(f"no such file or directory: {path}")
    program = load_processes(path) if is_target_capture(path) else None
    loaded = RankLogs(program.logs) if program is not None else load_ranks(path)
    refuse_nothing_read(loaded.logs.values(), [path])
    if text_logs:
        _add_text_logs(loaded, path, text_logs)
    _strict(loaded, options)
    first = next(iter(loaded.logs.values()))
    unranked = [str(file) for file in loaded.unranked]
    context = _offline_context(first, path, options.root, options.as_live)
    if program is not None and not program.are_ranks:  # a program's processes may differ by design
        return report_of_processes(loaded.logs, context)
    return report_of_ranks(loaded.logs, context, unranked=unranked)


def _add_text_logs(loaded: RankLogs, path: Path, text_logs: Sequence[Path]) -> None:
    """The run of the text logs that the trace's processes made, added rank by rank (a single rank on either
    side is the same process)."""
    from torchcompile_doctor.events.job_logs import add_described_once, load_text_logs, run_for_pids
    from torchcompile_doctor.events.load import refuse_nothing_read, trace_pids
    from torchcompile_doctor.events.model import EventLog

    runs = load_text_logs(text_logs)
    refuse_nothing_read((log for run in runs for log in run.logs.values()), text_logs)  # the log beside it too
    pids = trace_pids(path)
    run = run_for_pids(runs, pids)
    if run is None:
        logs, writers = ", ".join(map(str, text_logs)), ", ".join(map(str, sorted(pids))) or "unknown"
        whose = (
            f"{len(runs)} runs in {logs} and none of them was made by"
            if len(runs) > 1
            else f"{logs} is the log of another run (pid {', '.join(map(str, sorted(runs[0].pids)))}), not of"
        )
        raise DoctorError(f"{whose} the process(es) that wrote {path} (pid {writers}): give the log of the same run")
    for rank, log in run.logs.items():
        target = loaded.logs.get(rank)
        if target is None and len(loaded.logs) == 1 and len(run.logs) == 1:
            target = next(iter(loaded.logs.values()))
        if target is None:
            loaded.logs[rank] = target = EventLog()
        add_described_once(target, log)


TEXT_LOG_ONLY = (
    "read from a text log only: it holds what torch logged under TORCH_LOGS (CUDA graphs, warnings, perf hints, "
    "graph breaks, recompiles, an uncaught exception); the graphs, compile times and caches are in the run's "
    "TORCH_TRACE: `doctor report TRACE_DIR LOG` reads both."
)


def _text_log_reports(paths: Sequence[Path], options: RereadOptions) -> tuple[Report, ...]:
    """Text logs without a trace: one report per run found in them (several runs appended to one file)."""
    from torchcompile_doctor.analysis import report_of_ranks
    from torchcompile_doctor.events.job_logs import load_text_logs
    from torchcompile_doctor.events.load import RankLogs, refuse_nothing_read
    from torchcompile_doctor.events.model import Warning_

    runs = load_text_logs(paths)
    refuse_nothing_read((log for run in runs for log in run.logs.values()), paths)
    reports = []
    for run in runs:
        loaded = RankLogs(dict(sorted(run.logs.items())))
        next(iter(loaded.logs.values())).warnings.append(Warning_(TEXT_LOG_ONLY))
        _strict(loaded, options)
        first = next(iter(loaded.logs.values()))
        context = _offline_context(first, paths[0], options.root)
        label = " ".join(str(p) for p in paths) + (f" (run {run.index + 1} of {len(runs)})" if len(runs) > 1 else "")
        reports.append(_not_in_a_text_log(report_of_ranks(loaded.logs, replace(context, target=label))))
    return tuple(reports)


def _not_in_a_text_log(report: Report) -> Report:
    """A text log holds no graph count and no compile time (the trace does): unknown, never a measured 0."""
    return replace(
        report,
        summary=report.summary.without_what_a_text_log_cannot_hold(),
        rank_table=tuple(replace(row, graphs=None, compile_time_s=None) for row in report.rank_table),
    )


def reread_paths(paths: Sequence[Path], options: RereadOptions = RereadOptions()) -> Run:
    """`doctor report PATH...`: a kept capture, a TORCH_TRACE dir or trace file, and/or the text logs of the
    same run (a job's stderr under TORCH_LOGS, gzipped or not); no torch needed. Text logs alone give one report
    per run they hold."""
    for path in paths:
        if not path.exists():
            raise DoctorError(f"no such file or directory: {path}")
    with _gunzipped(paths):
        return _reread_paths(paths, options)


@contextlib.contextmanager
def _gunzipped(paths: Sequence[Path]) -> Iterator[None]:
    """A gzipped log that cannot be gunzipped (damaged, or gzip's magic bytes before anything else) is bad input,
    said in one line, never our traceback."""
    try:
        yield
    except (gzip.BadGzipFile, zlib.error, EOFError) as error:
        raise DoctorError(f"cannot gunzip {', '.join(map(str, paths))}: {error}") from None


def _reread_paths(paths: Sequence[Path], options: RereadOptions) -> Run:
    from torchcompile_doctor.events.job_logs import is_text_log

    text_logs = [path for path in paths if is_text_log(path)]
    traces = [path for path in paths if path not in text_logs]
    if len(traces) > 1:
        raise DoctorError(
            f"one capture or TORCH_TRACE dir at a time (with the text logs of its run), not {len(traces)}: "
            + ", ".join(map(str, traces))
        )
    if not text_logs:
        return reread(traces[0], options)
    if not traces:
        return Run(_text_log_reports(text_logs, options))
    report = _trace_report(traces[0], options, text_logs)
    return Run((_with_kept_experiments(traces[0], report, options),))


def reread(path: Path, options: RereadOptions = RereadOptions()) -> Run:
    """The report of an earlier run from what it left (`doctor report DIR`, `doctor guards --dump DIR`);
    no torch needed. How the target ended is what its log recorded (unknown when it recorded nothing).
    A capture kept with `--try-fixes` brings its experiments' measured effects back onto the fixes."""
    if options.dump:
        return Run((_dump_report(path, options.root),))
    with _gunzipped([path]):
        return Run((_with_kept_experiments(path, _trace_report(path, options), options),))


def _with_kept_experiments(path: Path, report: Report, options: RereadOptions) -> Report:
    """The report with the effects of the experiments `--try-fixes` kept beside the capture (experiments/kept.py)."""
    from torchcompile_doctor.experiments.kept import with_kept_experiments

    return with_kept_experiments(path, report, lambda kept: _trace_report(kept, options))


# ---------------------------------------------------------------------------------------------- verified fixes


def try_fixes(
    run: Run, options: RunOptions, progress: Progress = _quiet, trial_progress: TrialProgress | None = None
) -> Run:
    """Re-run the target once per suggested no-code-change fix (options.jobs side by side) and put each
    one's measured effect on the fixes that suggested it (experiments/runs.py). An interrupted run is returned
    as it is."""
    from torchcompile_doctor.experiments import runs

    if run.interrupted:
        return run
    if options.capture.nproc_per_node is not None:
        raise DoctorError("--try-fixes does not run under --nproc-per-node yet; run the fixes on one process")
    if len(run.targets) != 1:
        raise DoctorError("fixes are tried on a run of one target")
    target = run.targets[0]

    def measure(experiment: Experiment, workdir: Path) -> Report:
        return _capture_and_analyze(target, options, workdir, experiment)[1]

    report = runs.try_fixes(run.report, measure, options.artifacts, options.jobs, progress, trial_progress)
    return replace(run, reports=(report,))


def _in_copy(target: TargetSpec, root: Path, copy: Path) -> TargetSpec:
    """The target as it is found in a trial copy of its project (paths inside the project moved there)."""

    def moved(path: str | None) -> str | None:
        if not path:
            return path
        try:
            return str(copy / Path(path).resolve().relative_to(root.resolve()))
        except ValueError:
            return path

    return replace(target, path=moved(target.path), inputs_path=moved(target.inputs_path), cwd=moved(target.cwd) or "")


def _run_result(outcome: RunOutcome, report: Report, workdir: Path, wall_s: float) -> RunResult:
    from torchcompile_doctor.events.processes import load_processes
    from torchcompile_doctor.experiments.verify import figures
    from torchcompile_doctor.fix.judge import compiled_ops, problems_by_finding, steady_state_s
    from torchcompile_doctor.model.trial import RunResult

    folder = CaptureFolder(workdir)
    logs = list(load_processes(workdir).logs.values())

    def read(path: Path) -> str:
        return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""

    measured = replace(
        figures(report),
        compiled_ops=compiled_ops(
            (m for log in logs for m in log.metrics), (c for log in logs for c in log.call_counts)
        ),
        steady_state_s=steady_state_s(c for log in logs for c in log.call_counts),
    )
    return RunResult(
        figures=measured,
        fallbacks=report.summary.fallbacks_to_eager,
        succeeded=report.target_succeeded,
        exit_code=outcome.returncode,
        output=read(folder.target_output),
        errors=read(folder.target_errors)[-4000:],
        wall_s=wall_s,
        timed_out=outcome.timed_out,
        problems=problems_by_finding(report),
    )


def _plain_run(
    target: TargetSpec, keep: RunOptions, options: RunOptions, progress: Progress, warm: WarmProcesses | None
) -> tuple[Report, EventLog, RunResult, tuple[str, ...]]:
    """`doctor fix`'s plain run: its report, its processes' events together, what the trials are judged by, and
    the variables of its environment the program set. Forked from the warm process when it is warm, as the trials
    are (the program does not pay for importing torch twice); a program that set torch's variables (read when
    torch is imported, which the warm process did before the program ran) is run again afresh, and that run is
    the plain run."""
    from torchcompile_doctor.capture.runner import capture_folder
    from torchcompile_doctor.events.model import EventLog

    with capture_folder(options.artifacts) as workdir, progress(_running(target, options)):
        forked = warm if warm is not None and warm.ready() else None  # waits while it imports torch
        present = set(workdir.iterdir())
        outcome, report, before, log, environment_set = _plain_capture(target, keep, workdir, forked)
        if forked is not None and environment_set and not outcome.interrupted:
            _remove(set(workdir.iterdir()) - present)  # the forked run's capture: the run afresh replaces it
            outcome, report, before, log, environment_set = _plain_capture(target, keep, workdir, None)
    if outcome.interrupted:
        raise KeyboardInterrupt
    merged = EventLog()
    for one in log.values():
        merged.extend(one)
    return report, merged, before, environment_set


def _remove(paths: set[Path]) -> None:
    for path in paths:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()


def _plain_capture(
    target: TargetSpec, keep: RunOptions, workdir: Path, warm: WarmProcesses | None
) -> tuple[RunOutcome, Report, RunResult, dict[int, EventLog], tuple[str, ...]]:
    from torchcompile_doctor.capture.environment_watch import read_changed
    from torchcompile_doctor.events.processes import load_processes

    started = time.monotonic()
    outcome, report = _capture_and_analyze(target, keep, workdir, warm=warm)
    before = _run_result(outcome, report, workdir, time.monotonic() - started)
    environment_set = read_changed(CaptureFolder(workdir).environment_set)
    return outcome, report, before, load_processes(workdir).logs, environment_set


def fix(
    target: TargetSpec,
    options: RunOptions,
    budget_s: float,
    will_apply: bool = False,
    progress: Progress = _quiet,
    trial_progress: TrialProgress | None = None,
    candidate: Path | None = None,
) -> FixReport:
    """`doctor fix`: run the target as explain does (its output kept to compare), then measure each candidate
    fix in a trial copy of its project (fix/session.py) and choose the patch. Nothing of the user's is written.
    The plain run and every trial compile into an empty inductor cache of their own. The plain run, its repeats
    the trials are timed against, and the trials are forked from a warm process that imported torch once
    (capture/warm_server.py), unless the program sets variables torch reads when imported: then the plain run is
    run again afresh and the trials start afresh too.
    `candidate`: a unified diff of a person's or an agent's, measured alone as our candidates are (a patch that
    does not apply stops it before anything runs)."""
    from torchcompile_doctor.capture.runner import start_warm
    from torchcompile_doctor.fix.given_patch import read_patch
    from torchcompile_doctor.fix.session import GivenPatch, find_fix
    from torchcompile_doctor.patches.project import project_root

    if options.capture.nproc_per_node is not None:
        raise DoctorError("doctor fix runs one process; --nproc-per-node is not supported")
    if target.kind != "script" and target.kind != "module":
        raise DoctorError("doctor fix runs a script or a module (-m)")
    root = project_root(Path(target.path) if target.path else Path(target.cwd or ".") / "__main__.py")
    given = GivenPatch(candidate.name, read_patch(candidate, root)) if candidate is not None else None
    keep = replace(options, capture=replace(options.capture, keep_output=True, fresh_inductor_cache=True))
    with contextlib.ExitStack() as stack:
        warm = start_warm()  # torch imported once, for the plain run and every trial
        if warm is not None:
            stack.callback(warm.close)
        report, merged, before, environment_set = _plain_run(target, keep, options, progress, warm)
        alike = before.succeeded and not environment_set
        forked = warm if warm is not None and alike and warm.ready() else None
        measure = _trial_measure(_in_copy_of(target, root), keep, forked)
        return find_fix(
            target.display,
            root,
            report,
            merged,
            before,
            measure,
            jobs=options.jobs,
            budget_s=budget_s,
            progress=progress,
            trial_progress=trial_progress,
            will_apply=will_apply,
            given=given,
            warm=forked is not None,
        )


def _in_copy_of(target: TargetSpec, root: Path) -> Callable[[Path], TargetSpec]:
    return lambda copy: _in_copy(target, root, copy)


def _trial_measure(
    moved: Callable[[Path], TargetSpec], keep: RunOptions, warm: WarmProcesses | None
) -> Callable[[Path, float], RunResult]:
    """How `doctor fix` runs the program in a trial copy of its project: as the plain run, within the seconds
    given, forked from the warm process when there is one. A change that makes the program set variables of its
    environment cannot be measured there (torch was imported before it set them): it is not measured."""
    from torchcompile_doctor.capture.environment_watch import read_changed
    from torchcompile_doctor.capture.runner import capture_folder

    def measure(copy: Path, seconds: float) -> RunResult:
        timeout = min(seconds, keep.capture.timeout_s or seconds)
        trial = replace(keep, capture=replace(keep.capture, timeout_s=timeout), artifacts=None)
        with capture_folder(None) as folder:
            started = time.monotonic()
            outcome, report = _capture_and_analyze(moved(copy), trial, folder, warm=warm)
            names = read_changed(CaptureFolder(folder).environment_set) if warm is not None else ()
            if names:
                raise DoctorError(
                    f"with this change the program sets {', '.join(names)} in its environment, which torch reads "
                    "when it is imported: the trials, forked from a process that imported torch, cannot measure it"
                )
            return _run_result(outcome, report, folder, time.monotonic() - started)

    return measure


# ---------------------------------------------------------------------------------------------- the gate


def open_baseline(options: GateOptions) -> Baseline | None:
    """The baseline file, read (and checked) before anything runs; None when there is none yet."""
    from torchcompile_doctor.gate.baseline import open_baseline as read

    return read(options.baseline, options.update_baseline)


def _update_baseline(
    reports: Sequence[Report], path: Path, baseline: Baseline | None
) -> tuple[Baseline, BaselineUpdate]:
    from torchcompile_doctor.gate.baseline import Baseline, updated_document, write_baseline

    document, update = updated_document(baseline, list(reports), path.parent)
    write_baseline(path, document)
    return Baseline(path, document["torch"]), update


def gate(run: Run, options: GateOptions, baseline: Baseline | None = None) -> GatedRun:
    """Leave out what select/ignore exclude, rewrite the baseline when asked (only after a clean run), and
    mark on each report the findings that fail the criteria; findings the baseline holds never fail."""
    from torchcompile_doctor.gate.baseline import known_findings
    from torchcompile_doctor.gate.verdict import apply_gate, select_findings

    reports = tuple(select_findings(report, options.select, options.ignore) for report in run.reports)
    update, refused = None, False
    if options.update_baseline and options.baseline is not None:
        refused = exit_code(run) != ExitCode.OK
        if not refused:
            baseline, update = _update_baseline(reports, options.baseline, baseline)
    gated = []
    for report in reports:
        known, summary = known_findings(baseline, report, update) if baseline else ({}, None)
        gated.append(apply_gate(report, options.criteria, known, summary))
    return GatedRun(run, tuple(gated), update, refused)


# ---------------------------------------------------------------------------------------------- exit code


def _target_failed(report: Report) -> bool:
    """The target is known to have failed. A re-read log that recorded nothing about how its target ended
    (a bare TORCH_TRACE dir, a plain depyf dump) does not count as a failure."""
    from torchcompile_doctor.model.report import TargetStatus

    return report.target_status != TargetStatus.UNKNOWN and not report.target_succeeded


def exit_code(run: Run | GatedRun) -> ExitCode:
    """The one place that decides: 130 Ctrl-C; 3 a target failed (its report still came out);
    1 the gate failed; 0 otherwise. A re-read exits 3 when its log records that the target failed
    (it raised, or exited non-zero), 0 when it records nothing about how the target ended."""
    if run.interrupted:
        return ExitCode.INTERRUPTED
    if any(_target_failed(report) for report in run.reports):
        return ExitCode.TARGET_FAILED
    if any(report.gate is not None and not report.gate.passed for report in run.reports):
        return ExitCode.GATE_FAILED
    return ExitCode.OK
