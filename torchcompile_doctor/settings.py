"""What each command runs, built from the command line (and, for `doctor check`, the config file) and checked
before anything runs: one builder per command (`explain_settings`, `guards_settings`, `check_settings`,
`report_settings`), each returning the pipeline's own option types (RunOptions, GateOptions, RereadOptions) and
where the report goes; one table of validators (`SETTINGS`) for the command line's values and the config file's
alike."""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from torchcompile_doctor.capture.capture_options import CaptureOptions
from torchcompile_doctor.capture.target import TargetSpec, parse_target
from torchcompile_doctor.errors import DoctorError
from torchcompile_doctor.model.gate import GateCriteria
from torchcompile_doctor.model.severity import SEVERITIES
from torchcompile_doctor.pipeline import GateOptions, RereadOptions, RunOptions
from torchcompile_doctor.renderers import FORMATS as REPORT_FORMATS

KNOWN_BACKENDS = ("eager", "aot_eager", "inductor", "cudagraphs")
CONFIG_YAML = ".torchcompile-doctor.yaml"
PYPROJECT_TABLE = "torchcompile-doctor"  # [tool.torchcompile-doctor]
DEFAULT_BASELINE = ".doctor-baseline.json"
COMMAND_LINE = "command line"
_CODE = re.compile(r"^TCD\d{1,3}$")  # a rule code or a prefix of one (TCD1 = every TCD1xx)
_TARGET_KEYS = ("target", "module", "args", "inputs")


# ---------------------------------------------------------------------------------------------- the validators


class Invalid(ValueError):
    """A value a setting does not take: what is wrong with it, the part of the value it is about (`[0].args` of a
    config's targets), and for a choice the choices."""

    def __init__(self, problem: str, part: str = "", choices: tuple[str, ...] = ()) -> None:
        super().__init__(problem)
        self.part = part
        self.choices = choices


Check = Callable[[object], object]


def _whole(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise Invalid(f"must be a whole number >= 0, not {value!r}")
    return value


def _at_least_one(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise Invalid(f"must be at least 1, not {value!r}")
    return value


def _choice(choices: tuple[str, ...]) -> Check:
    def check(value: object) -> str:
        if value not in choices:
            raise Invalid(f"must be one of {', '.join(choices)}, not {value!r}", choices=choices)
        return str(value)

    return check


def _flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise Invalid(f"must be true or false, not {value!r}")
    return value


def _seconds(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise Invalid(f"must be a positive number of seconds, not {value!r}")
    return float(value)


def _text(value: object) -> str:
    if not isinstance(value, str) or not value:
        raise Invalid(f"must be a non-empty string, not {value!r}")
    return value


def _codes(value: object) -> tuple[str, ...]:
    if not isinstance(value, list | tuple) or not all(isinstance(code, str) and _CODE.match(code) for code in value):
        raise Invalid(f"must be a list of rule codes or prefixes like TCD101 or TCD2, not {value!r}")
    return tuple(value)


def _target_entry(index: int, item: object) -> dict[str, object]:
    """One of the config's targets: "train.py", "file.py:fn", or a table {target | module, args, inputs}."""
    where = f"[{index}]"
    if isinstance(item, str):
        item = {"target": item}
    if not isinstance(item, dict):
        raise Invalid(f"must be a path string or a table, not {item!r}", where)
    for name in item:
        if name not in _TARGET_KEYS:
            raise Invalid(f"is not a target key ({', '.join(_TARGET_KEYS)})", f"{where}.{name}")
    if ("target" in item) == ("module" in item):
        raise Invalid("needs exactly one of `target` or `module`", where)
    for name in ("target", "module", "inputs"):
        if name in item and (not isinstance(item[name], str) or not item[name]):
            raise Invalid(f"must be a non-empty string, not {item[name]!r}", f"{where}.{name}")
    args = item.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str | int | float) for a in args):
        raise Invalid(f"must be a list of strings, not {args!r}", f"{where}.args")
    return {**item, "args": [str(a) for a in args]}


def _targets(value: object) -> tuple[dict[str, object], ...]:
    if not isinstance(value, list) or not value:
        raise Invalid("must be a non-empty list of targets")
    return tuple(_target_entry(index, item) for index, item in enumerate(value))


# key -> its check, for the command line's `--key` and the config file's `key` alike
SETTINGS: dict[str, Check] = {
    "targets": _targets,
    "fullgraph": _flag,
    "max-graph-breaks": _whole,
    "max-recompiles": _whole,
    "fail-on": _choice(SEVERITIES),
    "backend": _choice(KNOWN_BACKENDS),
    "timeout": _seconds,
    "nproc-per-node": _whole,
    "baseline": _text,
    "select": _codes,
    "ignore": _codes,
    "format": _choice(REPORT_FORMATS),
    "jobs": _at_least_one,
}
CONFIG_KEYS = tuple(key for key in SETTINGS if key != "jobs")  # the keys of pyproject.toml's table and the YAML file


def checked(source: str, key: str, value: object) -> object:
    """`value` as `key` takes it, or a DoctorError naming where it came from (a config file, the command line)."""
    try:
        return SETTINGS[key](value)
    except Invalid as invalid:
        if source != COMMAND_LINE:
            raise DoctorError(f"{source}: `{key}{invalid.part}` {invalid}") from None
        if invalid.choices:
            raise DoctorError(f"unknown --{key} {value!r}; choose one of: {', '.join(invalid.choices)}") from None
        raise DoctorError(f"{source}: `--{key}` {invalid}") from None


def check_output_path(output: Path | None) -> None:
    """Fail before running anything when the report could not be written."""
    if output is None:
        return
    parent = output.parent if str(output.parent) else Path(".")
    if output.is_dir():
        raise DoctorError(f"--output {output} is a directory; give a file path")
    if not parent.is_dir():
        raise DoctorError(f"--output directory does not exist: {parent}")
    if not os.access(parent, os.W_OK) or (output.exists() and not os.access(output, os.W_OK)):
        raise DoctorError(f"--output {output} is not writable")


# ---------------------------------------------------------------------------------------------- the config file


@dataclass(frozen=True)
class Config:
    path: Path | None  # the file it came from; None when there is none
    values: Mapping[str, object] = field(default_factory=dict)  # its keys, checked

    @property
    def directory(self) -> Path:
        return self.path.parent if self.path else Path.cwd()


def _read_table(path: Path) -> dict[str, object] | None:
    """The doctor's table from pyproject.toml or the YAML file; None when pyproject.toml has none."""
    import tomllib

    import yaml

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise DoctorError(f"cannot read config {path}: {error}") from None
    if path.name == "pyproject.toml":
        try:
            document = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise DoctorError(f"{path} is not valid TOML: {error}") from None
        table = document.get("tool", {}).get(PYPROJECT_TABLE)
        if table is not None and not isinstance(table, dict):
            raise DoctorError(f"{path}: [tool.{PYPROJECT_TABLE}] must be a table")
        return table
    try:
        table = yaml.safe_load(text)  # safe_load: tags like !!python/object are refused, nothing is constructed
    except yaml.YAMLError as error:
        problem = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise DoctorError(f"{path} is not valid YAML: {problem}") from None
    if table is None:
        return {}
    if not isinstance(table, dict):
        raise DoctorError(f"{path}: the top level must be a mapping of keys to values")
    return table


def validate_config(path: Path, table: Mapping[str, object]) -> dict[str, object]:
    values = {}
    for key, value in table.items():
        if key not in CONFIG_KEYS:
            close = difflib.get_close_matches(str(key).replace("_", "-"), CONFIG_KEYS, n=1)
            hint = f" (did you mean `{close[0]}`?)" if close else f" (known: {', '.join(CONFIG_KEYS)})"
            raise DoctorError(f"{path}: unknown key `{key}`{hint}")
        values[str(key)] = checked(str(path), str(key), value)
    return values


def find_config(start: Path) -> Path | None:
    """The nearest pyproject.toml with a [tool.torchcompile-doctor] table, or .torchcompile-doctor.yaml,
    from `start` upward. In one directory pyproject.toml wins."""
    for directory in (start, *start.parents):
        pyproject = directory / "pyproject.toml"
        if pyproject.is_file() and _read_table(pyproject) is not None:
            return pyproject
        if (directory / CONFIG_YAML).is_file():
            return directory / CONFIG_YAML
    return None


def load_config(explicit: Path | None, start: Path) -> Config:
    path: Path | None
    if explicit is not None:
        if not explicit.is_file():
            raise DoctorError(f"--config {explicit} does not exist or is not a file")
        path = explicit.resolve()
        table = _read_table(path)
        if table is None:
            raise DoctorError(f"{path} has no [tool.{PYPROJECT_TABLE}] table")
    else:
        path = find_config(start.resolve())
        table = _read_table(path) if path else {}
    return Config(path, validate_config(path, table or {}) if path else {})


# ---------------------------------------------------------------------------------------------- the commands


@dataclass(frozen=True)
class TargetArgs:
    """What to run, as the command line says it: TARGET and the arguments after `--`, -m MODULE, --inputs."""

    target: str | None = None
    args: tuple[str, ...] = ()
    module: str | None = None
    inputs: str | None = None

    def spec(self) -> TargetSpec:
        target, args = self.target, list(self.args)
        if self.module and target is not None:  # `-m pkg -- --flag`: the first word after `--` is an argument
            args, target = [target, *args], None
        return parse_target(target, self.module, self.inputs, args)


@dataclass(frozen=True)
class ExplainSettings:
    """`doctor explain` and `doctor guards TARGET`: what to run, how, and where the report goes."""

    target: TargetSpec
    run: RunOptions
    format: str
    output: Path | None
    try_fixes: bool = False


def _run_options(capture: CaptureOptions, artifacts: Path | None, jobs: int) -> RunOptions:
    if capture.backend is not None:
        checked(COMMAND_LINE, "backend", capture.backend)
    if capture.timeout_s is not None:
        checked(COMMAND_LINE, "timeout", capture.timeout_s)
    checked(COMMAND_LINE, "jobs", jobs)
    if artifacts is not None and artifacts.exists() and not artifacts.is_dir():
        raise DoctorError(f"--artifacts {artifacts} exists and is not a directory")
    return RunOptions(capture, artifacts.resolve() if artifacts else None, jobs)


def check_destination(fmt: str, output: Path | None) -> None:
    """The report's format is one there is, and `--output` can be written."""
    checked(COMMAND_LINE, "format", fmt)
    check_output_path(output)


def explain_settings(
    target: TargetArgs,
    capture: CaptureOptions,
    *,
    fmt: str,
    output: Path | None,
    artifacts: Path | None = None,
    jobs: int = 2,
    try_fixes: bool = False,
) -> ExplainSettings:
    """`doctor explain` (and `doctor guards TARGET`, whose capture times the guards). With --try-fixes the plain
    run and every experiment compile cold, each into an empty inductor cache of its own: measured alike."""
    if try_fixes:
        capture = replace(capture, fresh_inductor_cache=True)
    run = _run_options(capture, artifacts, jobs)
    spec = target.spec()
    check_destination(fmt, output)
    if capture.nproc_per_node is not None and try_fixes:
        raise DoctorError("--try-fixes does not run under --nproc-per-node yet; run the fixes on one process")
    return ExplainSettings(target=spec, run=run, format=fmt, output=output, try_fixes=try_fixes)


FIX_FORMATS = ("terminal", "json", "diff")  # `doctor fix`: the patch with its measurements, as JSON, or only the diff
DEFAULT_FIX_BUDGET_S = 900.0


@dataclass(frozen=True)
class FixSettings:
    """`doctor fix`: what to run, how, how long its trials may take, and whether the patch is written."""

    target: TargetSpec
    run: RunOptions
    budget_s: float
    apply: bool
    format: str
    output: Path | None
    candidate: Path | None = None  # --candidate PATCH: measure this patch (a person's, an agent's) alone


def fix_settings(
    target: TargetArgs,
    capture: CaptureOptions,
    *,
    budget_s: float | None,
    apply: bool,
    fmt: str,
    output: Path | None,
    artifacts: Path | None,
    jobs: int,
    candidate: Path | None = None,
) -> FixSettings:
    """`doctor fix`."""
    run = _run_options(capture, artifacts, jobs)
    if fmt not in FIX_FORMATS:
        raise DoctorError(f"--format {fmt}: doctor fix writes {', '.join(FIX_FORMATS)}")
    check_output_path(output)
    if budget_s is not None and not budget_s > 0:
        raise DoctorError(f"--budget {budget_s:g}: give the seconds the fixes' trials may take, more than 0")
    spec = target.spec()
    if spec.kind not in ("script", "module"):
        raise DoctorError("doctor fix runs a script or -m MODULE (a function target has no program to patch)")
    if candidate is not None and not candidate.is_file():
        raise DoctorError(f"--candidate {candidate}: no such file (give a unified diff, as `git diff` writes it)")
    return FixSettings(spec, run, budget_s or DEFAULT_FIX_BUDGET_S, apply, fmt, output, candidate)


@dataclass(frozen=True)
class RereadSettings:
    """`doctor report` and `doctor guards --dump DIR`: what to read back, how, and where the report goes."""

    paths: tuple[Path, ...]
    reread: RereadOptions
    format: str
    output: Path | None


def reread_settings(paths: tuple[Path, ...], reread: RereadOptions, *, fmt: str, output: Path | None) -> RereadSettings:
    """`doctor report PATH...`."""
    check_destination(fmt, output)
    return RereadSettings(paths, reread, fmt, output)


def guards_settings(
    target: TargetArgs, capture: CaptureOptions, *, fmt: str, output: Path | None, artifacts: Path | None
) -> ExplainSettings | RereadSettings:
    """`doctor guards`: run TARGET timing its guards (and writing --dump DIR), or read an existing --dump DIR."""
    check_destination(fmt, output)
    if target.target is None and target.module is None:
        if capture.dump_dir is None:
            raise DoctorError("give a TARGET to run, or --dump DIR to read an existing dump")
        return RereadSettings((capture.dump_dir,), RereadOptions(dump=True), fmt, output)
    measured = replace(capture, measure_guards=True)
    return explain_settings(target, measured, fmt=fmt, output=output, artifacts=artifacts)


# ---------------------------------------------------------------------------------------------- doctor check


@dataclass(frozen=True)
class CheckFlags:
    """`doctor check`'s options as the command line gave them (None: not given; the config file, then the
    defaults, decide)."""

    fullgraph: bool | None = None
    max_graph_breaks: int | None = None
    max_recompiles: int | None = None
    fail_on: str | None = None
    baseline: Path | None = None
    update_baseline: bool = False
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] | None = None
    backend: str | None = None
    format: str | None = None
    output: Path | None = None
    timeout: float | None = None
    nproc_per_node: int | None = None

    def given(self) -> dict[str, object]:
        """The settings the command line gave, by their config key (`max_graph_breaks`: `max-graph-breaks`)."""
        named = {f.name.replace("_", "-"): getattr(self, f.name) for f in fields(self)}
        return {key: value for key, value in named.items() if key in CONFIG_KEYS and value is not None}


@dataclass(frozen=True)
class CheckSettings:
    targets: tuple[TargetSpec, ...]  # empty with --from-capture
    run: RunOptions
    gate: GateOptions
    format: str
    output: Path | None
    config_file: Path | None
    from_capture: Path | None = None  # gate this kept capture instead of running `targets`


def _config_target(entry: Mapping[str, object], base: Path) -> TargetSpec:
    """A target from the config: its paths are relative to the config file's directory."""

    def resolve(text: object) -> str | None:
        if not isinstance(text, str):
            return None
        file, sep, name = text.rpartition(":")
        if sep and file and re.fullmatch(r"[A-Za-z_][\w.]*", name) and not (base / text).exists():
            return f"{base / file}:{name}"  # file.py:function: only the file is a path
        return str(base / text)

    module = entry.get("module")
    args = entry.get("args")
    return parse_target(
        resolve(entry.get("target")),
        module if isinstance(module, str) else None,
        resolve(entry.get("inputs")),
        [str(arg) for arg in args] if isinstance(args, list) else [],
    )


def _targets_to_run(target: TargetArgs, config: Config) -> tuple[TargetSpec, ...]:
    """The command line's target, else the config file's `targets`."""
    if target.target or target.module:
        return (target.spec(),)
    entries = config.values.get("targets")
    if isinstance(entries, tuple):
        return tuple(_config_target(entry, config.directory) for entry in entries)
    where = f" in {config.path}" if config.path else ""
    raise DoctorError(
        f"missing TARGET: give a script (train.py), -m MODULE or file.py:function, or list `targets`{where}"
    )


_RUN_ONLY_FLAGS = ("timeout", "backend", "nproc-per-node")  # they change how a target runs: nothing runs here


def _check_capture_usage(capture: Path, target: TargetArgs, given: Mapping[str, object]) -> None:
    """--from-capture gates what a run left: a target or a flag about running one is a mistake, said as such.
    The config's `targets` and run keys are simply not used (the same config serves live checks)."""
    if target.target or target.module or target.inputs or target.args:
        raise DoctorError("give a TARGET to run or --from-capture DIR to gate a kept capture, not both")
    flag = next((f"--{key}" for key in _RUN_ONLY_FLAGS if given.get(key) is not None), None)
    if flag is not None:
        raise DoctorError(f"{flag} applies to running a target; --from-capture DIR runs nothing")
    if not capture.exists():
        raise DoctorError(f"--from-capture {capture}: no such file or directory")


def _baseline_path(flags: CheckFlags, config: Config) -> Path | None:
    """--baseline, else the config's `baseline` (relative to the config file), else the default for an update."""
    if flags.baseline is not None:
        return flags.baseline
    if isinstance(config.values.get("baseline"), str):
        return config.directory / str(config.values["baseline"])
    if flags.update_baseline:
        return config.directory / DEFAULT_BASELINE
    return None


def _config_start(target: TargetArgs) -> Path:
    """Where the config file is looked for, upward: the target's directory, else the current one."""
    given = target.target if not target.module else None
    given = given or (target.inputs.rpartition(":")[0] if target.inputs else None)
    return Path(given).expanduser().resolve().parent if given and Path(given).parent.exists() else Path.cwd()


def _gate_options(merged: Mapping[str, object], flags: CheckFlags, config: Config) -> GateOptions:
    def number(key: str) -> int | None:
        value = merged.get(key)
        return value if isinstance(value, int) else None

    fail_on = merged.get("fail-on")
    criteria = GateCriteria(
        fullgraph=bool(merged.get("fullgraph", False)),
        max_graph_breaks=number("max-graph-breaks"),
        max_recompiles=number("max-recompiles"),
        fail_on=fail_on if isinstance(fail_on, str) else None,
    ).or_default()
    baseline = _baseline_path(flags, config)
    codes = {key: merged.get(key, ()) for key in ("select", "ignore")}
    return GateOptions(
        criteria=criteria,
        select=tuple(str(c) for c in codes["select"]) if isinstance(codes["select"], tuple) else (),
        ignore=tuple(str(c) for c in codes["ignore"]) if isinstance(codes["ignore"], tuple) else (),
        baseline=Path(baseline).resolve() if baseline is not None else None,
        update_baseline=flags.update_baseline,
    )


def _check_run(merged: Mapping[str, object]) -> RunOptions:
    backend, timeout, ranks = merged.get("backend"), merged.get("timeout"), merged.get("nproc-per-node")
    return RunOptions(
        CaptureOptions(
            backend=backend if isinstance(backend, str) else None,
            timeout_s=float(timeout) if isinstance(timeout, int | float) else None,
            nproc_per_node=ranks if isinstance(ranks, int) and ranks else None,
        )
    )


def check_settings(
    target: TargetArgs, flags: CheckFlags, config_file: Path | None = None, from_capture: Path | None = None
) -> CheckSettings:
    """Flags > the config file > defaults. With `from_capture` (--from-capture) nothing is run: the config is
    found from the current directory."""
    given = flags.given()
    if from_capture is not None:
        _check_capture_usage(from_capture, target, given)
    config = load_config(config_file, _config_start(target))
    targets = _targets_to_run(target, config) if from_capture is None else ()
    for key, value in given.items():
        if key != "baseline":  # a path the user gave
            given[key] = checked(COMMAND_LINE, key, value)
    merged = {**config.values, **given}
    check_output_path(flags.output)
    fmt = merged.get("format", "terminal")
    return CheckSettings(
        targets=targets,
        run=_check_run(merged),
        gate=_gate_options(merged, flags, config),
        format=fmt if isinstance(fmt, str) else "terminal",
        output=flags.output,
        config_file=config.path,
        from_capture=from_capture,
    )
