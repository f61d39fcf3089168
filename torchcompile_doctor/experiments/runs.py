"""Running experiments: each planned experiment measured in a capture of its own (side by side, `jobs` at a time),
a carried-cache experiment as two runs sharing one inductor cache, each kept (with `--artifacts DIR`) as
`DIR/experiments/N/` with its record (read back by experiments/kept.py). How a target is captured and analysed is
the pipeline's: it hands these functions `measure` (run the target with an experiment into a folder, return its
report)."""

from __future__ import annotations

import math
import shutil
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

from torchcompile_doctor.capture.runner import capture_folder
from torchcompile_doctor.capture_layout import CARRIED_RUNS, CaptureFolder, ExperimentFolder
from torchcompile_doctor.errors import DoctorError
from torchcompile_doctor.experiments.plan import plan
from torchcompile_doctor.experiments.record import ExperimentRecord, write_record
from torchcompile_doctor.experiments.verify import Measured, attach, result_of, timing_decided
from torchcompile_doctor.fix.judge import ended_alike
from torchcompile_doctor.fix.trials import AGAIN, Job, QuietProgress, TrialProgress, TrialRunner
from torchcompile_doctor.model.experiment import CacheDir, Experiment, carries_cache, describe, key
from torchcompile_doctor.model.report import Report

Measure = Callable[[Experiment, Path], Report]  # capture and analyse the target with the experiment, in the folder
Progress = Callable[[str], AbstractContextManager[object]]
AGAIN_SUFFIX = "-again"  # a kept experiment's second run, beside its first until the faster is chosen


def _carried_cache_runs(measure: Measure, folder: ExperimentFolder) -> tuple[Report, Report]:
    """Two runs sharing one inductor cache directory that starts empty: a fresh machine, then the same start
    with a persistent TORCHINDUCTOR_CACHE_DIR."""
    folder.persistent_inductor_cache.mkdir(parents=True, exist_ok=True)
    step = CacheDir(str(folder.persistent_inductor_cache))
    runs = []
    for name in CARRIED_RUNS:
        folder.run(name).mkdir(parents=True, exist_ok=True)
        runs.append(measure(step, folder.run(name)))
    return runs[0], runs[1]


def _run_one(measure: Measure, where: Path | None, experiment: Experiment) -> Measured:
    """One experiment measured (kept in `where` with its record when the capture is kept)."""
    record = ExperimentRecord(experiment, CARRIED_RUNS if carries_cache(experiment) else ())
    result: Measured
    try:
        with capture_folder(where) as workdir:
            if carries_cache(experiment):
                result = _carried_cache_runs(measure, ExperimentFolder(workdir))
            else:
                result = measure(experiment, workdir)
    except DoctorError as error:
        result = str(error)
        record = ExperimentRecord(experiment, record.runs, str(error))
    if where is not None:  # `doctor report DIR` puts the measured effects back on the fixes
        write_record(ExperimentFolder(where).record, record)
    return result


def _compile_s(report: Report) -> float:
    told = report.summary.compile_time_s
    return math.inf if told is None else told


def _again(
    measure: Measure, kept: CaptureFolder | None, number: int, experiment: Experiment, first: Measured
) -> Measured:
    """The experiment measured once more, as `doctor fix` measures a trial again whose verdict one timed run made:
    the faster of its two runs is kept (the same counts, the least compile time: a busy machine only adds time),
    and with a kept capture it is the one on disk, so that `doctor report DIR` reads what was reported."""
    where = kept.experiment(number) if kept is not None else None
    spare = where.with_name(f".{number}{AGAIN_SUFFIX}") if where is not None else None
    again = _run_one(measure, spare, experiment)
    faster = (
        isinstance(first, Report)
        and isinstance(again, Report)
        and ended_alike(result_of(first), result_of(again))
        and _compile_s(again) < _compile_s(first)
    )
    if where is not None and spare is not None:
        if faster:
            shutil.rmtree(where)
            spare.rename(where)
        else:
            shutil.rmtree(spare, ignore_errors=True)
    return again if faster else first


def _measured_line(result: Measured, took: float) -> str:
    after = result[1] if isinstance(result, tuple) else result
    if isinstance(after, str):
        return f"not measured: {after}"
    told = after.summary
    figures = f"breaks {told.graph_breaks}, recompiles {told.recompiles}, compile {told.compile_time_s:.2f} s"
    return f"measured in {took:.1f} s: {figures}"


def try_fixes(
    report: Report,
    measure: Measure,
    kept: Path | None,
    jobs: int,
    progress: Progress,
    trial_progress: TrialProgress | None = None,
) -> Report:
    """The report with each planned experiment's measured effect on the fixes that suggested it: run by the trial
    engine that runs `doctor fix`'s trials (fix/trials.py's TrialRunner, no budget but the capture's --timeout)
    and judged as it judges them (experiments/verify.py). `trial_progress` hears of each run as it ends."""
    planned = plan(report)
    folder = CaptureFolder(kept) if kept is not None else None
    runner = TrialRunner[Measured](math.inf, trial_progress or QuietProgress(), _measured_line)

    def job(number: int, experiment: Experiment) -> Job[Measured]:
        where = folder.experiment(number) if folder is not None else None
        return Job(describe(experiment), lambda seconds: _run_one(measure, where, experiment))

    def again(number: int, first: Measured) -> Job[Measured]:
        experiment = planned[number]
        return Job(f"{describe(experiment)} ({AGAIN})", lambda s: _again(measure, folder, number, experiment, first))

    with progress(f"trying {len(planned)} fix(es), {jobs} at a time") if trial_progress is None else nullcontext():
        measured = runner.run_all([job(number, experiment) for number, experiment in enumerate(planned)], jobs)
        doubtful = [
            number
            for number, (experiment, result) in enumerate(zip(planned, measured, strict=True))
            if isinstance(result, Report) and timing_decided(experiment, result, report)
        ]
        redone = runner.run_all([again(number, measured[number]) for number in doubtful], jobs) if doubtful else []
    for number, result in zip(doubtful, redone, strict=True):
        measured[number] = result if not isinstance(result, str) else measured[number]
    return attach(report, {key(experiment): result for experiment, result in zip(planned, measured, strict=True)})
