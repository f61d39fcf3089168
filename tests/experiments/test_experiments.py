"""Experiments (experiments/): every catalogue experiment parses into its typed change and back, a kept
experiment's record round-trips (and the recorded ones read), placeholders are filled or the experiment dropped,
and each is described as --try-fixes has always described it."""

from __future__ import annotations

import json

import pytest
import yaml
from support.paths import DATA

from torchcompile_doctor.experiments.record import ExperimentRecord, read_record, write_record
from torchcompile_doctor.model.experiment import (
    CacheDir,
    CarriedCache,
    Combined,
    CompileKwargs,
    ConfigSwitch,
    ExperimentError,
    MarkDynamic,
    Regional,
    as_json,
    describe,
    filled,
    key,
    parse_experiment,
    placeholders,
)
from torchcompile_doctor.rules import CATALOGUE


def _catalogue_experiments() -> list[dict]:
    text = CATALOGUE.read_text(encoding="utf-8")  # libyaml's parser where PyYAML has it, as the catalogue reads it
    document = yaml.load(text, Loader=yaml.CSafeLoader) if yaml.__with_libyaml__ else yaml.safe_load(text)
    found = [rule["experiment"] for rule in document["rules"] if rule.get("experiment")]
    found += [w["experiment"] for rule in document["rules"] for w in rule.get("wordings") or [] if w.get("experiment")]
    return found


@pytest.mark.parametrize("raw", _catalogue_experiments(), ids=lambda raw: json.dumps(raw, sort_keys=True))
def test_every_catalogue_experiment_round_trips(raw):
    experiment = parse_experiment(raw)
    assert as_json(experiment) == raw
    assert key(experiment) == json.dumps(raw, sort_keys=True)  # the key kept captures were recorded with


def test_each_kind_of_change_round_trips():
    for experiment in (
        ConfigSwitch((("recompile_limit", 64),)),
        CompileKwargs((("dynamic", True), ("mode", None))),
        MarkDynamic("/p/m.py", 3, "f", "x", 1),
        Regional("blocks", "Block.forward"),
        CarriedCache(),
        CacheDir("/tmp/c"),
        Combined((ConfigSwitch((("capture_scalar_outputs", True),)), CompileKwargs((("dynamic", True),)))),
    ):
        assert parse_experiment(as_json(experiment)) == experiment


@pytest.mark.parametrize("raw", [{}, {"config": {}}, {"weather": {"a": 1}}, {"config": {"x": {"nested": 1}}}, [1]])
def test_what_is_no_experiment_is_refused(raw):
    with pytest.raises(ExperimentError):
        parse_experiment(raw)


def test_placeholders_are_filled_or_the_experiment_is_dropped():
    raw = {"config": {"ignore_logging_functions": ["{logger_function_ref}"]}}
    experiment = parse_experiment(raw)
    assert placeholders(experiment) == {"logger_function_ref"}
    facts = {"logger_function_ref": "logging.Logger.info"}
    done = filled(experiment, facts.get)
    assert done is not None and as_json(done) == {"config": {"ignore_logging_functions": ["logging.Logger.info"]}}
    assert filled(experiment, {}.get) is None


def test_described_as_try_fixes_describes_it():
    assert describe(parse_experiment({"config": {"capture_scalar_outputs": True}})) == (
        "torch._dynamo.config.capture_scalar_outputs = True"
    )
    assert describe(parse_experiment({"config": {"ignore_logging_functions": ["pkg:logging.Logger.x"]}})) == (
        "torch._dynamo.config.ignore_logging_functions.update({logging.Logger.x})"
    )
    assert describe(parse_experiment({"compile": {"dynamic": True}})) == "torch.compile(..., dynamic=True)"
    assert (
        describe(MarkDynamic("/p/m.py", 3, "f", "x", 1)) == "torch._dynamo.mark_dynamic(x, 1) before each call of `f`"
    )
    assert describe(Regional("blocks", "Block.forward")) == (
        "`for block in model.blocks: block.compile()` instead of compiling the model"
    )


def test_a_record_round_trips(tmp_path):
    for record in (
        ExperimentRecord(CarriedCache(), ("first", "second")),
        ExperimentRecord(CompileKwargs((("dynamic", True),)), (), "the target cannot be run"),
    ):
        write_record(tmp_path / "experiment.json", record)
        assert read_record(tmp_path / "experiment.json") == record


def test_the_recorded_try_fixes_records_read():
    records = sorted((DATA / "try_fixes").rglob("experiment.json"))
    assert records
    for path in records:
        record = read_record(path)
        assert as_json(record.experiment) == json.loads(path.read_text())["experiment"]
