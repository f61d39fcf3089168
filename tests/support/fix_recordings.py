"""A recorded run as `doctor fix` reads it: the project it ran in, read from the capture's source snapshot (never
from the disk), and the run as the judge sees it, with what the program printed beside it."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from support.captures import reread
from torchcompile_doctor.capture_layout import SOURCE_SNAPSHOT
from torchcompile_doctor.events.model import EventLog
from torchcompile_doctor.events.processes import load_processes
from torchcompile_doctor.experiments.verify import result_of
from torchcompile_doctor.fix.candidates import Program
from torchcompile_doctor.model.trial import RunResult


def snapshot_files(capture: Path) -> dict[str, str]:
    """The texts of the files the capture's snapshot holds, by the path they were recorded at."""
    files = json.loads((capture / SOURCE_SNAPSHOT).read_text(encoding="utf-8"))["files"]
    # a frame of no file (`<frozen genericpath>`) is recorded with no text
    return {path: "".join(lines) for path, lines in files.items() if lines is not None}


def project_of(capture: Path, program: str | None = None, *, with_calls: bool = False) -> Program:
    """The project of the recorded `program` (a file name; None: the snapshot's one file): its folder, its files
    read from the snapshot (never from the disk); `with_calls`: also the torch.compile calls and the lines that
    called compiled code, as the run recorded them."""
    files = snapshot_files(capture)
    (recorded,) = [path for path in files if program is None or Path(path).name == program]
    log = EventLog()
    for one in load_processes(capture).logs.values() if with_calls else ():
        log.extend(one)
    return Program.of(log, Path(recorded).parent, lambda path: files.get(str(path)))


def run_of(capture: Path, printed: Path) -> RunResult:
    """The recorded run as the judge reads a trial: its figures and problems from the capture, and its output."""
    return replace(result_of(reread(capture)), output=printed.read_text(encoding="utf-8"))
