"""What the parent tells a capture child: the target, where the capture goes, and how to capture it (the backend
override, an experiment, guard timing, a depyf dump). The runner writes it as one JSON argument of the child's
command line (`_entry.py SPEC`); the child, and the children it spawns, read it back. Writer and reader in one
module (tests/capture/test_child_spec.py round-trips every field); nothing in it is executed."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace

from torchcompile_doctor.capture.target import TargetSpec
from torchcompile_doctor.model.experiment import Experiment, as_json, parse_experiment

TARGET = "target"  # the process that runs the target
SPAWNED = "spawned"  # a process it started through multiprocessing's spawn method


@dataclass(frozen=True)
class ChildSpec:
    target: TargetSpec
    display: str  # the target as the report names it
    side_channel: str  # the target process's side-channel file (capture_layout.SIDE_CHANNEL)
    entry: str  # the entry file a spawned child runs (capture/_entry.py)
    trace_dir: str  # TORCH_TRACE
    inductor_cache: str | None = None  # TORCHINDUCTOR_CACHE_DIR under --fresh-inductor-cache
    # the user's own values of the variables the capture sets (the report says they were not used)
    overridden_env: dict[str, str] = field(default_factory=dict)
    backend: str | None = None  # override every torch.compile backend
    experiment: Experiment | None = None  # a --try-fixes experiment
    measure_guards: bool = False  # time each compiled frame's guards (`doctor guards`)
    dump_dir: str | None = None  # write a depyf dump here
    side_channel_per_rank: bool = False  # under torchrun: every rank writes its own side channel
    stack_file: str | None = None  # where the target's stack goes when --timeout stops it
    role: str = TARGET

    def spawned(self) -> ChildSpec:
        """The spec of a process the target spawned (a side channel of its own; the stack file is the target's)."""
        return replace(self, role=SPAWNED)


def write_spec(spec: ChildSpec) -> str:
    """The spec as the child's argument."""
    document = asdict(spec)
    document["experiment"] = as_json(spec.experiment) if spec.experiment is not None else None
    return json.dumps(document)


def _target(raw: dict[str, object]) -> TargetSpec:
    def text(name: str) -> str | None:
        value = raw.get(name)
        return value if isinstance(value, str) else None

    args = raw.get("args")
    return TargetSpec(
        kind=str(raw["kind"]),
        path=text("path"),
        module=text("module"),
        function=text("function"),
        inputs_path=text("inputs_path"),
        inputs_function=text("inputs_function"),
        args=tuple(str(arg) for arg in args) if isinstance(args, list) else (),
        cwd=text("cwd") or "",
    )


def read_spec(text: str) -> ChildSpec:
    """The spec the parent wrote (`write_spec`)."""
    raw = json.loads(text)
    experiment = raw.get("experiment")
    return ChildSpec(
        target=_target(raw["target"]),
        display=str(raw["display"]),
        side_channel=str(raw["side_channel"]),
        entry=str(raw["entry"]),
        trace_dir=str(raw["trace_dir"]),
        inductor_cache=raw.get("inductor_cache"),
        overridden_env={str(k): str(v) for k, v in (raw.get("overridden_env") or {}).items()},
        backend=raw.get("backend"),
        experiment=parse_experiment(experiment) if experiment is not None else None,
        measure_guards=bool(raw.get("measure_guards")),
        dump_dir=raw.get("dump_dir"),
        side_channel_per_rank=bool(raw.get("side_channel_per_rank")),
        stack_file=raw.get("stack_file"),
        role=str(raw.get("role") or TARGET),
    )
