"""The experiments `--try-fixes` kept beside a capture, read back by `doctor report DIR` (experiments/runs.py writes
them): nothing in them is run, so reading a report loads none of the capture runner or the trial engine. How a kept
capture is analysed is the pipeline's: it hands `with_kept_experiments` `reread` (the report of a kept capture
folder)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from torchcompile_doctor.capture_layout import CaptureFolder, ExperimentFolder
from torchcompile_doctor.errors import DoctorError
from torchcompile_doctor.experiments.record import read_record
from torchcompile_doctor.experiments.verify import Measured, attach
from torchcompile_doctor.model.experiment import key
from torchcompile_doctor.model.report import Report

Reread = Callable[[Path], Report]  # the report of a kept capture folder


def with_kept_experiments(path: Path, report: Report, reread: Reread) -> Report:
    """The report with the effects of the experiments `--try-fixes` kept under `path/experiments` (each folder:
    the experiment's own capture and its record; nothing in it is run)."""
    results: dict[str, Measured] = {}
    folder = CaptureFolder(path).experiments if path.is_dir() else None
    for kept in sorted(folder.iterdir()) if folder is not None and folder.is_dir() else ():
        try:
            record = read_record(ExperimentFolder(kept).record)
            if record.error:
                results[key(record.experiment)] = record.error
            elif record.runs:
                first, second = (reread(ExperimentFolder(kept).run(name)) for name in record.runs)
                results[key(record.experiment)] = (first, second)
            else:
                results[key(record.experiment)] = reread(kept)
        except (OSError, ValueError, KeyError, TypeError, DoctorError):
            continue  # an experiment folder that is incomplete or not ours: its fix stays unverified
    return attach(report, results) if results else report
