"""A single-target capture, process by process: the target's own process and the Python processes it
started (capture/children.py).

Every process that imports torch writes its own TORCH_TRACE file (the directory is inherited), and each
captured process its own side channel: the target's `doctor_events.jsonl`, each spawned child's
`doctor_events_pid_<pid>.jsonl`. Trace files are matched to processes by the pid in their envelopes. A
trace whose pid no side channel names came from a process that ran outside the capture (started with
`subprocess`, a launcher such as torchrun, a fork server): torch traced it, but the doctor's hooks
(backend override, backends used, call sites, perf hints) did not run there.

`load_processes` gives one EventLog when at most one process compiled (everything merged, as one
process), else one log per compiling process, to be reported like ranks (worst process, not the sum: a
break traced in two processes is one break, seen twice). Processes that are the ranks of one process group
(the program started them with `torch.multiprocessing.spawn` and each joined the group: torch's trace names
each one's rank) are keyed by rank and compared as a job's ranks are; other processes may differ by design.
Notes on which processes compiled and which ran outside the capture go into the logs as warnings, so the
report says them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from torchcompile_doctor.capture_layout import PROCESS_SIDE_CHANNEL, SIDE_CHANNEL, CaptureFolder
from torchcompile_doctor.events.load import envelope_pid, read_side_channel_file, read_trace_files
from torchcompile_doctor.events.model import EventLog, Warning_

TARGET = "the program"
CHILD = "started by the program through multiprocessing, captured"
OUTSIDE = "outside the capture"


@dataclass
class _Process:
    pid: int | None
    role: str  # TARGET, CHILD or OUTSIDE
    log: EventLog = field(default_factory=EventLog)
    rank: int | None = None  # its rank in a process group, where its trace names one

    @property
    def compiled(self) -> bool:
        return bool(self.log.dynamo_starts or self.log.metrics)

    @property
    def label(self) -> str:
        return f"pid {self.pid} ({self.role})" if self.pid is not None else f"a process ({self.role})"


def _captured(path: Path) -> dict[int | None, _Process]:
    """The processes that wrote a side channel, the target's first."""
    processes: dict[int | None, _Process] = {}
    main = path / SIDE_CHANNEL
    if main.is_file():
        log = read_side_channel_file(main)
        pid = next((info.pid for info in log.bootstrap if info.role == "target"), None)
        processes[pid] = _Process(pid, TARGET, log)
    for file in sorted(path.iterdir()):
        match = PROCESS_SIDE_CHANNEL.match(file.name)
        if match and file.is_file():
            pid = int(match.group(1))
            processes.setdefault(pid, _Process(pid, CHILD)).log.extend(read_side_channel_file(file))
    return processes


def _with_traces(path: Path, processes: dict[int | None, _Process]) -> list[_Process]:
    target = next(iter(processes.values()), None)
    for trace in read_trace_files(path):
        pid = envelope_pid(trace.path)
        if target is not None and (pid is None or (pid not in processes and target.pid is None)):
            pid = target.pid  # no pid to tell (a damaged first line, an old capture): the target's, as before
        process = processes.setdefault(pid, _Process(pid, OUTSIDE))
        process.log.extend(trace.log)
        process.rank = trace.rank if trace.rank is not None else process.rank
    return list(processes.values())


def _ranks_of_one_group(compiling: list[_Process]) -> bool:
    """Every compiling process names a rank of a process group, each another one."""
    ranks = [p.rank for p in compiling]
    return None not in ranks and len(set(ranks)) == len(ranks)


def _notes(processes: list[_Process], compiling: list[_Process], backend: str | None) -> list[str]:
    notes = []
    if len(compiling) > 1 and _ranks_of_one_group(compiling):
        notes.append(
            f"{len(compiling)} processes compiled: "
            + ", ".join(f"{p.label} as rank {p.rank}" for p in compiling)
            + ", the ranks of one process group; they are reported as a job's ranks (a finding's figures are the "
            "worst rank's, not their sum), and where they differ the report says so."
        )
    elif len(compiling) > 1:
        notes.append(
            f"{len(compiling)} processes compiled: "
            + ", ".join(p.label for p in compiling)
            + "; each is reported like a rank, in this order (a finding's figures are the worst process's, "
            "not their sum)."
        )
    elif compiling and compiling[0].role == CHILD:
        notes.append(f"the compiles ran in {compiling[0].label}, not in the program's own process.")
    for outside in (p for p in compiling if p.role == OUTSIDE):
        override = f" --backend {backend} did not apply to it," if backend else ""
        notes.append(
            f"{outside.label}: the program started it with subprocess, a launcher (torchrun) or a fork server, "
            f"so it ran with the program's own settings:{override} its backend, call sites and perf hints were "
            "not recorded; its compiles are in the report as torch's trace recorded them."
        )
    return notes


def _without_override(log: EventLog) -> None:
    """A process the doctor did not control: no backend is claimed for it."""
    log.bootstrap[:] = [replace(info, backend_override=None) for info in log.bootstrap]


def _shared(target: _Process | None, process: _Process) -> EventLog:
    """One compiling process's log, with the target's record of the run (how it ended, versions, notes)."""
    log = EventLog()
    log.extend(process.log)
    if target is not None and target is not process:
        log.bootstrap[:0] = [info for info in target.log.bootstrap if not process.log.bootstrap]
        log.target_exits.extend(target.log.target_exits)
        log.warnings.extend(target.log.warnings)
        log.explain.extend(target.log.explain)
    if process.role == OUTSIDE:
        _without_override(log)
    return log


@dataclass(frozen=True)
class ProgramLogs:
    """The logs of one target's processes, and whether they are the ranks of one process group."""

    logs: dict[int, EventLog]
    are_ranks: bool = False


def load_processes(path: Path) -> ProgramLogs:
    """A capture directory of one target: {0: log} when at most one process compiled, else one log per
    compiling process, keyed by its rank where they are the ranks of one process group, else 0, 1, ... in the
    order of `_notes`."""
    processes = _with_traces(path, _captured(path)) if path.is_dir() else []
    target = next((p for p in processes if p.role == TARGET), None)
    compiling = [p for p in processes if p.compiled]
    backend = next((i.backend_override for i in target.log.bootstrap), None) if target else None
    notes = [Warning_(text) for text in _notes(processes, compiling, backend)]
    if len(compiling) <= 1:
        merged = EventLog()
        for process in processes:
            merged.extend(process.log)
        if compiling and compiling[0].role == OUTSIDE:
            _without_override(merged)
        merged.warnings.extend(notes)
        return ProgramLogs({0: merged})
    are_ranks = _ranks_of_one_group(compiling)
    logs = {}
    for index, process in enumerate(compiling):
        key = process.rank if are_ranks and process.rank is not None else index
        logs[key] = _shared(target, process)
        logs[key].warnings.extend(notes)
    return ProgramLogs(dict(sorted(logs.items())), are_ranks)


def is_target_capture(path: Path) -> bool:
    """A capture directory of one target process (not torchrun's ranks): it has the target's side channel."""
    return CaptureFolder(path).is_target_capture()
