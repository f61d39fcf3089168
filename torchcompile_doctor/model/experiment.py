"""The experiment record: one change that needs no edit of the user's code, measured by re-running the target with it
(`--try-fixes`, and `doctor fix`, which combines them). A frozen union of the kinds of change:

- ConfigSwitch: `torch._dynamo.config` settings (`capture_scalar_outputs = True`; for the logging-function sets,
  names added to them);
- CompileKwargs: `torch.compile` keywords forced on every call (`dynamic=True`);
- MarkDynamic: `torch._dynamo.mark_dynamic(variable, dim)` before each call of one compiled function;
- Regional: each block of a module list compiled instead of the whole model;
- CarriedCache: two runs sharing an inductor cache that outlives them (a fresh machine without and with a
  persistent TORCHINDUCTOR_CACHE_DIR); each run gets its CacheDir;
- Combined: several of these at once.

Each is parsed from the catalogue's `experiment:` mapping when the catalogue loads (`parse_experiment`), with
`{fact}` placeholders the finding fills (`filled`), and written back in the same form (`as_json`): the child's
spec (capture/child_spec.py) and a kept experiment's record (experiments/record.py) carry that form, and
`key` (its JSON, sorted) matches a measured run to the findings that asked for it."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TypeVar, assert_never

ConfigValue = bool | int | float | str | tuple[str, ...]
KwargValue = bool | int | float | str | None
# the config sets whose entries are functions, named (`logging.Logger.info`; `pkg:` names what to import first)
FUNCTION_SETS = ("reorderable_logging_functions", "ignore_logging_functions")
_PLACEHOLDER = re.compile(r"\{(\w+)\}")

Facts = Callable[[str], object]  # a fact by name (None: not known)


class ExperimentError(ValueError):
    """An `experiment:` mapping of the catalogue (or of a record) that is not one."""


@dataclass(frozen=True)
class ConfigSwitch:
    settings: tuple[tuple[str, ConfigValue], ...]  # (torch._dynamo.config key, value)


@dataclass(frozen=True)
class CompileKwargs:
    kwargs: tuple[tuple[str, KwargValue], ...]


@dataclass(frozen=True)
class MarkDynamic:
    file: str
    line: int
    function: str
    variable: str
    dim: int


@dataclass(frozen=True)
class Regional:
    module_list: str  # the module list's attribute path under the compiled model: `blocks`
    block: str  # the block's forward, as the user knows it: `Block.forward`


@dataclass(frozen=True)
class CarriedCache:
    """Two runs, one inductor cache directory that starts empty and outlives the first."""


@dataclass(frozen=True)
class CacheDir:
    """What each run of a carried-cache experiment gets: the shared inductor cache directory."""

    path: str


Change = ConfigSwitch | CompileKwargs | MarkDynamic | Regional | CarriedCache | CacheDir


@dataclass(frozen=True)
class Combined:
    changes: tuple[Change, ...]


Experiment = Change | Combined


def changes_of(experiment: Experiment) -> tuple[Change, ...]:
    return experiment.changes if isinstance(experiment, Combined) else (experiment,)


_C = TypeVar("_C", ConfigSwitch, CompileKwargs, MarkDynamic, Regional, CarriedCache, CacheDir)


def _of_kind(experiment: Experiment | None, kind: type[_C]) -> list[_C]:
    return [c for c in changes_of(experiment) if isinstance(c, kind)] if experiment is not None else []


def config_settings(experiment: Experiment | None) -> dict[str, ConfigValue]:
    return {key: value for change in _of_kind(experiment, ConfigSwitch) for key, value in change.settings}


def compile_kwargs(experiment: Experiment | None) -> dict[str, KwargValue]:
    return {key: value for change in _of_kind(experiment, CompileKwargs) for key, value in change.kwargs}


def mark_dynamic(experiment: Experiment | None) -> MarkDynamic | None:
    return next(iter(_of_kind(experiment, MarkDynamic)), None)


def regional(experiment: Experiment | None) -> Regional | None:
    return next(iter(_of_kind(experiment, Regional)), None)


def cache_dir(experiment: Experiment | None) -> str | None:
    found = _of_kind(experiment, CacheDir)
    return found[0].path if found else None


def carries_cache(experiment: Experiment) -> bool:
    """Needs two runs: one that fills the cache directory, one that reads it."""
    return bool(_of_kind(experiment, CarriedCache))


def is_compile_time(experiment: Experiment) -> bool:
    """Judged by compile time rather than by breaks and recompiles."""
    return bool(_of_kind(experiment, Regional) or _of_kind(experiment, CarriedCache))


# -- the catalogue's form, and back ---------------------------------------------------------------------------
def _scalar(value: object, where: str) -> bool | int | float | str:
    if not isinstance(value, (bool, int, float, str)):
        raise ExperimentError(f"{where}: experiment settings must be numbers, strings, booleans or lists of names")
    return value


def _config(raw: Mapping[object, object], where: str) -> ConfigSwitch:
    settings: list[tuple[str, ConfigValue]] = []
    for key, value in raw.items():
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            settings.append((str(key), tuple(value)))
        else:
            settings.append((str(key), _scalar(value, where)))
    return ConfigSwitch(tuple(settings))


def _compile(raw: Mapping[object, object], where: str) -> CompileKwargs:
    kwargs = tuple((str(key), None if value is None else _scalar(value, where)) for key, value in raw.items())
    return CompileKwargs(kwargs)


def _mark(raw: Mapping[object, object], where: str) -> MarkDynamic:
    try:
        file, line, function, variable, dim = (raw[k] for k in ("file", "line", "function", "variable", "dim"))
    except KeyError as missing:
        raise ExperimentError(f"{where}: mark_dynamic needs {missing}") from None
    if not (isinstance(line, int) and isinstance(dim, int)):
        raise ExperimentError(f"{where}: mark_dynamic's line and dim are numbers")
    return MarkDynamic(str(file), line, str(function), str(variable), dim)


def _regional(raw: Mapping[object, object], where: str) -> Regional:
    if not isinstance(raw.get("module_list"), str) or not isinstance(raw.get("block"), str):
        raise ExperimentError(f"{where}: regional needs module_list and block")
    return Regional(str(raw["module_list"]), str(raw["block"]))


def _cache(raw: Mapping[object, object], where: str) -> CarriedCache | CacheDir:
    if raw.get("carry") is True:
        return CarriedCache()
    if isinstance(raw.get("cache_dir"), str):
        return CacheDir(str(raw["cache_dir"]))
    raise ExperimentError(f"{where}: cache_artifacts is {{carry: true}} or {{cache_dir: DIR}}")


_PARSERS: dict[str, Callable[[Mapping[object, object], str], Change]] = {
    "config": _config,
    "compile": _compile,
    "mark_dynamic": _mark,
    "regional": _regional,
    "cache_artifacts": _cache,
}


def parse_experiment(raw: object, where: str = "experiment") -> Experiment:
    """An experiment from its mapping (`{config: {capture_scalar_outputs: true}}`; several kinds: Combined)."""
    if not isinstance(raw, Mapping) or not raw or set(raw) - set(_PARSERS):
        raise ExperimentError(f"{where}: experiment must map {', '.join(_PARSERS)} to settings")
    changes = []
    for kind, part in raw.items():
        if not isinstance(part, Mapping) or not part:
            raise ExperimentError(f"{where}: experiment settings must be a non-empty mapping")
        changes.append(_PARSERS[str(kind)](part, where))
    return changes[0] if len(changes) == 1 else Combined(tuple(changes))


def _change_json(change: Change) -> tuple[str, dict[str, object]]:
    match change:
        case ConfigSwitch():
            return "config", {k: list(v) if isinstance(v, tuple) else v for k, v in change.settings}
        case CompileKwargs():
            return "compile", dict(change.kwargs)
        case MarkDynamic():
            mark = {"file": change.file, "line": change.line, "function": change.function}
            return "mark_dynamic", {**mark, "variable": change.variable, "dim": change.dim}
        case Regional():
            return "regional", {"module_list": change.module_list, "block": change.block}
        case CarriedCache():
            return "cache_artifacts", {"carry": True}
        case CacheDir():
            return "cache_artifacts", {"cache_dir": change.path}
        case _:
            assert_never(change)


def as_json(experiment: Experiment) -> dict[str, object]:
    """The experiment in the catalogue's form (what `parse_experiment` reads)."""
    return dict(_change_json(change) for change in changes_of(experiment))


def key(experiment: Experiment) -> str:
    """One text per experiment: a measured run is matched to the findings whose fix asked for it."""
    return json.dumps(as_json(experiment), sort_keys=True)


# -- placeholders -----------------------------------------------------------------------------------------------
def placeholders(experiment: Experiment) -> set[str]:
    """The `{fact}` names the experiment's settings hold (the catalogue's binding checks them)."""
    return set(_PLACEHOLDER.findall(json.dumps(as_json(experiment))))


def _fill_text(text: str, fact: Facts) -> str:
    return _PLACEHOLDER.sub(lambda m: str(fact(m[1])) if fact(m[1]) else m[0], text)


def _fill(change: Change, fact: Facts) -> Change:
    match change:
        case ConfigSwitch():
            settings = tuple(
                (
                    key,
                    tuple(_fill_text(v, fact) for v in value)
                    if isinstance(value, tuple)
                    else _filled_value(value, fact),
                )
                for key, value in change.settings
            )
            return replace(change, settings=settings)
        case CompileKwargs():
            kwargs = tuple((k, _filled_value(v, fact) if v is not None else None) for k, v in change.kwargs)
            return replace(change, kwargs=kwargs)
        case MarkDynamic() | Regional() | CarriedCache() | CacheDir():  # no placeholder in them
            return change
        case _:
            assert_never(change)


def _filled_value(value: bool | int | float | str, fact: Facts) -> bool | int | float | str:
    return _fill_text(value, fact) if isinstance(value, str) else value


def filled(experiment: Experiment, fact: Facts) -> Experiment | None:
    """The experiment with its `{fact}` placeholders filled from the finding's facts; None when a fact it names
    is not known (an experiment that would set a placeholder is no experiment)."""
    done: Experiment = (
        Combined(tuple(_fill(c, fact) for c in experiment.changes))
        if isinstance(experiment, Combined)
        else _fill(experiment, fact)
    )
    return None if placeholders(done) else done


# -- in words ---------------------------------------------------------------------------------------------------
def _describe_config(change: ConfigSwitch) -> list[str]:
    parts = []
    for key, value in change.settings:
        if key in FUNCTION_SETS and isinstance(value, tuple):
            names = ", ".join(name.rpartition(":")[2] for name in value)  # `pkg:` only says what to import first
            parts.append(f"torch._dynamo.config.{key}.update({{{names}}})")
        else:
            shown = list(value) if isinstance(value, tuple) else value
            parts.append(f"torch._dynamo.config.{key} = {shown!r}")
    return parts


def _describe(change: Change) -> list[str]:
    match change:
        case ConfigSwitch():
            return _describe_config(change)
        case MarkDynamic():
            return [
                f"torch._dynamo.mark_dynamic({change.variable}, {change.dim}) before each call of `{change.function}`"
            ]
        case CompileKwargs():
            return [f"torch.compile(..., {', '.join(f'{k}={v!r}' for k, v in change.kwargs)})"]
        case Regional():
            return [f"`for block in model.{change.module_list}: block.compile()` instead of compiling the model"]
        case CarriedCache():
            return ["TORCHINDUCTOR_CACHE_DIR kept from a first run on an empty cache to a second run"]
        case CacheDir():  # what a carried-cache run gets, not a change of its own
            return []
        case _:
            assert_never(change)


_ORDER = (ConfigSwitch, MarkDynamic, CompileKwargs, Regional, CarriedCache, CacheDir)


def describe(experiment: Experiment) -> str:
    """`torch._dynamo.config.capture_scalar_outputs = True`, `torch.compile(..., dynamic=True)`."""
    changes = sorted(changes_of(experiment), key=lambda change: _ORDER.index(type(change)))
    return "; ".join(part for change in changes for part in _describe(change))
