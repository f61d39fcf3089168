"""How a target is captured: the options the runner (capture/runner.py) turns into the child's spec. The
pipeline's RunOptions carry them; an experiment's run is the same options with its change."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from torchcompile_doctor.model.experiment import Experiment


@dataclass(frozen=True)
class CaptureOptions:
    backend: str | None = None  # override every torch.compile backend
    timeout_s: float | None = None  # stop the target after this many seconds
    fresh_inductor_cache: bool = False  # compile into an empty inductor cache (cached graphs log no perf hints)
    nproc_per_node: int | None = None  # run under torchrun with this many ranks (one merged report)
    measure_guards: bool = False  # time each compiled frame's guards (`doctor guards`)
    dump_dir: Path | None = None  # write a depyf dump here; the capture is copied into it
    experiment: Experiment | None = None  # a --try-fixes experiment
    keep_output: bool = False  # the target's stdout and stderr into the capture folder, not onto our stderr
