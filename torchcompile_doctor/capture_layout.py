"""The layout of a capture folder (`--artifacts DIR`, a temp dir otherwise): every name in it, for its writers
(capture/runner.py, capture/_bootstrap.py, the side channel, the pipeline, experiments/) and its readers
(events/load.py, events/processes.py, capture/source_snapshot.py, `doctor report DIR`) alike. A TORCH_TRACE dir
of a job is read with the same names (torch's own rank file names among them).

    DIR/
      trace/                                   TORCH_TRACE: one file per process (torch names a rank's file)
        dedicated_log_torch_trace_rank_R_*.log   a rank's trace, when a process group was up when it opened it
      doctor_events.jsonl                      the target process's side channel (events/sidechannel.py)
      doctor_events_rank_R.jsonl               a rank's side channel under torchrun
      doctor_events_pid_P.jsonl                a process the target spawned or forked
      doctor_stack.txt                         the target's stack when --timeout stopped it
      doctor_sources.json                      the source files the analysis read (capture/source_snapshot.py)
      doctor_environment.txt                   the variables of its environment the target set, when it set any
      inductor_cache/                          --fresh-inductor-cache: the empty inductor cache it compiles into
      experiments/N/                           one experiment --try-fixes kept: a capture of its own
        experiment.json                        which change it measured (experiments/record.py)
        persistent_inductor_cache/, first/, second/   a carried-cache experiment's cache and its two runs

A depyf dump folder (`doctor guards TARGET --dump DUMP`) holds a copy of the capture in DUMP/doctor_capture/.
Nothing here touches the disk: it names things only."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

TRACE_DIR = "trace"
TRACE_FILE_PATTERNS = ("*.log", "*.log.gz")  # a job's artifacts may keep them gzipped
# torch's name for a rank's trace file (a process group was up when torch opened it)
RANK_TRACE_FILE = re.compile(r"^dedicated_log_torch_trace_rank_(\d+)_")

SIDE_CHANNEL = "doctor_events.jsonl"
RANK_SIDE_CHANNEL = re.compile(r"^doctor_events_rank_(\d+)\.jsonl$")  # under torchrun every rank writes its own
RANK_SIDE_CHANNEL_GLOB = "doctor_events_rank_*.jsonl"
PROCESS_SIDE_CHANNEL = re.compile(r"^doctor_events_pid_(\d+)\.jsonl$")  # a process the target spawned or forked

STACK_FILE = "doctor_stack.txt"
TARGET_OUTPUT = "target_stdout.txt"  # what the target printed, kept when asked (`doctor fix` compares it)
TARGET_ERRORS = "target_stderr.txt"  # and its stderr (why a trial of a fix failed)
SOURCE_SNAPSHOT = "doctor_sources.json"
ENVIRONMENT_SET = "doctor_environment.txt"  # the variables the target set while it ran (capture/environment_watch.py)
FRESH_INDUCTOR_CACHE = "inductor_cache"

EXPERIMENTS = "experiments"
EXPERIMENT_RECORD = "experiment.json"
PERSISTENT_INDUCTOR_CACHE = "persistent_inductor_cache"
CARRIED_RUNS = ("first", "second")  # a cache experiment's two runs: a fresh machine, then a persistent cache

CAPTURE_IN_DUMP = "doctor_capture"  # in a depyf dump folder: the capture it was made with


def rank_side_channel(rank: int) -> str:
    return f"doctor_events_rank_{rank}.jsonl"


def process_side_channel(pid: int) -> str:
    return f"doctor_events_pid_{pid}.jsonl"


@dataclass(frozen=True)
class CaptureFolder:
    """The paths of one capture folder."""

    path: Path

    @property
    def trace_dir(self) -> Path:
        return self.path / TRACE_DIR

    @property
    def side_channel(self) -> Path:
        return self.path / SIDE_CHANNEL

    @property
    def stack_file(self) -> Path:
        return self.path / STACK_FILE

    @property
    def target_output(self) -> Path:
        return self.path / TARGET_OUTPUT

    @property
    def target_errors(self) -> Path:
        return self.path / TARGET_ERRORS

    @property
    def environment_set(self) -> Path:
        return self.path / ENVIRONMENT_SET

    @property
    def source_snapshot(self) -> Path:
        return self.path / SOURCE_SNAPSHOT

    @property
    def fresh_inductor_cache(self) -> Path:
        return self.path / FRESH_INDUCTOR_CACHE

    @property
    def experiments(self) -> Path:
        return self.path / EXPERIMENTS

    def experiment(self, number: int) -> Path:
        """The folder of the experiment `--try-fixes` ran as number `number`."""
        return self.experiments / str(number)

    def is_target_capture(self) -> bool:
        """A capture of one target process (not torchrun's ranks): it has the target's side channel."""
        return self.path.is_dir() and self.side_channel.is_file() and not any(self.path.glob(RANK_SIDE_CHANNEL_GLOB))


@dataclass(frozen=True)
class ExperimentFolder:
    """The paths of one kept experiment (`DIR/experiments/N/`): a capture folder of its own, or, for a
    carried-cache experiment, two of them sharing one inductor cache."""

    path: Path

    @property
    def record(self) -> Path:
        return self.path / EXPERIMENT_RECORD

    @property
    def persistent_inductor_cache(self) -> Path:
        return self.path / PERSISTENT_INDUCTOR_CACHE

    def run(self, name: str) -> Path:
        """The capture folder of one of a carried-cache experiment's runs (`first`, `second`)."""
        return self.path / name
