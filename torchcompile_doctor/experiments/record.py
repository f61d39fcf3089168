"""The record a kept experiment leaves in its folder (`DIR/experiments/N/experiment.json`, capture_layout.py):
which experiment it measured, the names of its runs when it took two (a carried cache: `first`, `second`), or
the error that kept it from running. Writer and reader in one module; plain JSON, never executed. `doctor report
DIR` reads the records back and puts each experiment's measured effect on the fixes that asked for it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from torchcompile_doctor.model.experiment import Experiment, as_json, parse_experiment


@dataclass(frozen=True)
class ExperimentRecord:
    experiment: Experiment
    runs: tuple[str, ...] = ()  # the folders of its runs, when it took two; () when its folder is its one capture
    error: str | None = None  # why it could not run


def write_record(path: Path, record: ExperimentRecord) -> None:
    document: dict[str, object] = {"experiment": as_json(record.experiment), "runs": list(record.runs)}
    if record.error is not None:
        document["error"] = record.error
    path.write_text(json.dumps(document), encoding="utf-8")


def read_record(path: Path) -> ExperimentRecord:
    """The record at `path`; ValueError (OSError when unreadable) for a file that is not one."""
    document = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(document, dict):
        raise ValueError(f"{path}: not an experiment record")
    experiment = parse_experiment(document.get("experiment"), str(path))  # an ExperimentError is a ValueError
    runs = document.get("runs") or []
    failed = document.get("error")
    if not isinstance(runs, list) or not all(isinstance(run, str) for run in runs):
        raise ValueError(f"{path}: `runs` must name run folders")
    return ExperimentRecord(experiment, tuple(runs), str(failed) if failed else None)
