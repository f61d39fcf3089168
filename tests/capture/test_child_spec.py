"""The child's spec (capture/child_spec.py): what the runner writes, the child reads back, field for field."""

from __future__ import annotations

from dataclasses import fields, replace

from torchcompile_doctor.capture.child_spec import SPAWNED, TARGET, ChildSpec, read_spec, write_spec
from torchcompile_doctor.capture.target import TargetSpec
from torchcompile_doctor.model.experiment import CacheDir, Combined, CompileKwargs, ConfigSwitch, MarkDynamic

FUNCTION = TargetSpec(
    kind="function",
    path="/p/model.py",
    function="step",
    inputs_path="/p/inputs.py",
    inputs_function="example",
    args=("--epochs", "1"),
    cwd="/p",
)


def _full() -> ChildSpec:
    """A spec with every field set to something other than its default."""
    experiment = Combined(
        (
            ConfigSwitch((("capture_scalar_outputs", True), ("ignore_logging_functions", ("pkg:logging.Logger.x",)))),
            CompileKwargs((("dynamic", True),)),
            MarkDynamic("/p/model.py", 3, "step", "x", 1),
            CacheDir("/tmp/cache"),
        )
    )
    return ChildSpec(
        target=FUNCTION,
        display="/p/model.py:step",
        side_channel="/a/doctor_events.jsonl",
        entry="/doctor/capture/_entry.py",
        trace_dir="/a/trace",
        inductor_cache="/a/inductor_cache",
        overridden_env={"TORCH_TRACE": "/elsewhere"},
        backend="eager",
        experiment=experiment,
        measure_guards=True,
        dump_dir="/a/dump",
        side_channel_per_rank=True,
        stack_file="/a/doctor_stack.txt",
        role=SPAWNED,
    )


def test_every_field_round_trips():
    spec = _full()
    defaults = ChildSpec(FUNCTION, "", "", "", "")
    assert all(getattr(spec, f.name) != getattr(defaults, f.name) for f in fields(ChildSpec) if f.name != "target")
    assert read_spec(write_spec(spec)) == spec


def test_the_defaults_round_trip_and_a_spawned_child_is_told_so():
    spec = ChildSpec(TargetSpec(kind="script", path="/p/train.py", cwd="/p"), "/p/train.py", "s", "e", "t")
    assert read_spec(write_spec(spec)) == spec and spec.role == TARGET
    assert read_spec(write_spec(spec.spawned())) == replace(spec, role=SPAWNED)


def test_a_module_target_round_trips():
    spec = replace(_full(), target=TargetSpec(kind="module", module="pkg.train", args=("-x",), cwd="/p"))
    assert read_spec(write_spec(spec)).target == spec.target
