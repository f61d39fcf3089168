"""Frozen settings for each command, built from the command line and checked before anything runs."""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass, replace
from pathlib import Path

from torchcompile_doctor.capture.target import TargetSpec, parse_target
from torchcompile_doctor.errors import DoctorError
from torchcompile_doctor.model.gate import GateCriteria
from torchcompile_doctor.model.report import SEVERITIES
from torchcompile_doctor.pipeline import GateOptions, RunOptions
from torchcompile_doctor.renderers import FORMATS as REPORT_FORMATS

KNOWN_BACKENDS = ("eager", "aot_eager", "inductor", "cudagraphs")


def check_format(fmt: str) -> str:
    if fmt not in REPORT_FORMATS:
        raise DoctorError(f"unknown --format {fmt!r}; choose one of: {', '.join(REPORT_FORMATS)}")
    return fmt


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


@dataclass(frozen=True)
class ExplainSettings:
    """`doctor explain` and `doctor guards TARGET`: what to run, how, and where the report goes."""

    target: TargetSpec
    run: RunOptions
    format: str
    output: Path | None
    try_fixes: bool = False

    @classmethod
    def from_cli(
        cls,
        target: str | None,
        args: list[str],
        module: str | None,
        inputs: str | None,
        *,
        fmt: str,
        output: Path | None,
        run: RunOptions,
        try_fixes: bool = False,
    ) -> ExplainSettings:
        if module and target is not None:  # `-m pkg -- --flag`: the first word after `--` is an argument
            args, target = [target, *args], None
        if run.backend is not None and run.backend not in KNOWN_BACKENDS:
            raise DoctorError(f"unknown --backend {run.backend!r}; choose one of: {', '.join(KNOWN_BACKENDS)}")
        if run.timeout_s is not None and run.timeout_s <= 0:
            raise DoctorError("--timeout must be a positive number of seconds")
        if run.jobs < 1:
            raise DoctorError("--jobs must be at least 1")
        artifacts = run.artifacts
        if artifacts is not None and artifacts.exists() and not artifacts.is_dir():
            raise DoctorError(f"--artifacts {artifacts} exists and is not a directory")
        parsed = parse_target(target, module, inputs, args)
        check_format(fmt)
        check_output_path(output)
        if run.nproc_per_node is not None and try_fixes:
            raise DoctorError("--try-fixes does not run under --nproc-per-node yet; run the fixes on one process")
        run = replace(run, artifacts=artifacts.resolve() if artifacts else None)
        return cls(target=parsed, run=run, format=fmt, output=output, try_fixes=try_fixes)


# ---------------------------------------------------------------------------------------------- doctor check

CONFIG_YAML = ".torchcompile-doctor.yaml"
PYPROJECT_TABLE = "torchcompile-doctor"  # [tool.torchcompile-doctor]
DEFAULT_BASELINE = ".doctor-baseline.json"
_CODE = re.compile(r"^TCD\d{1,3}$")  # a rule code or a prefix of one (TCD1 = every TCD1xx)


@dataclass(frozen=True)
class CheckSettings:
    targets: tuple[TargetSpec, ...]
    gate: GateCriteria
    baseline: Path | None  # the file read (and written with update_baseline)
    update_baseline: bool
    select: tuple[str, ...]
    ignore: tuple[str, ...]
    backend: str | None
    format: str
    output: Path | None
    timeout_s: float | None
    config_file: Path | None
    nproc_per_node: int | None = None  # run each target under torchrun with this many ranks
    capture: Path | None = None  # --from-capture: gate this kept capture instead of running `targets` (then empty)

    @property
    def run_options(self) -> RunOptions:
        return RunOptions(backend=self.backend, timeout_s=self.timeout_s, nproc_per_node=self.nproc_per_node)

    @property
    def gate_options(self) -> GateOptions:
        return GateOptions(self.gate, self.select, self.ignore, self.baseline, self.update_baseline)


def _key_error(path: Path, key: str, problem: str) -> DoctorError:
    return DoctorError(f"{path}: `{key}` {problem}")


def _check_int(path: Path, key: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _key_error(path, key, f"must be a whole number >= 0, not {value!r}")
    return value


def _check_choice(choices: tuple[str, ...]):
    def check(path: Path, key: str, value: object) -> str:
        if value not in choices:
            raise _key_error(path, key, f"must be one of {', '.join(choices)}, not {value!r}")
        return value

    return check


def _check_bool(path: Path, key: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise _key_error(path, key, f"must be true or false, not {value!r}")
    return value


def _check_timeout(path: Path, key: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise _key_error(path, key, f"must be a positive number of seconds, not {value!r}")
    return float(value)


def _check_str(path: Path, key: str, value: object) -> str:
    if not isinstance(value, str) or not value:
        raise _key_error(path, key, f"must be a non-empty string, not {value!r}")
    return value


def _check_codes(path: Path, key: str, value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(code, str) and _CODE.match(code) for code in value):
        raise _key_error(path, key, f"must be a list of rule codes or prefixes like TCD101 or TCD2, not {value!r}")
    return tuple(value)


_TARGET_KEYS = ("target", "module", "args", "inputs")


def _check_targets(path: Path, key: str, value: object) -> tuple[dict, ...]:
    """Each target: "train.py", "file.py:fn", or a table {target | module, args, inputs}."""
    if not isinstance(value, list) or not value:
        raise _key_error(path, key, "must be a non-empty list of targets")
    targets = []
    for index, item in enumerate(value):
        where = f"{key}[{index}]"
        if isinstance(item, str):
            item = {"target": item}
        if not isinstance(item, dict):
            raise _key_error(path, where, f"must be a path string or a table, not {item!r}")
        for name in item:
            if name not in _TARGET_KEYS:
                raise _key_error(path, f"{where}.{name}", f"is not a target key ({', '.join(_TARGET_KEYS)})")
        if ("target" in item) == ("module" in item):
            raise _key_error(path, where, "needs exactly one of `target` or `module`")
        for name in ("target", "module", "inputs"):
            if name in item:
                _check_str(path, f"{where}.{name}", item[name])
        args = item.get("args", [])
        if not isinstance(args, list) or not all(isinstance(a, str | int | float) for a in args):
            raise _key_error(path, f"{where}.args", f"must be a list of strings, not {args!r}")
        targets.append({**item, "args": [str(a) for a in args]})
    return tuple(targets)


# key -> its check; the same keys in pyproject.toml and the YAML file
CONFIG_KEYS = {
    "targets": _check_targets,
    "fullgraph": _check_bool,
    "max-graph-breaks": _check_int,
    "max-recompiles": _check_int,
    "fail-on": _check_choice(SEVERITIES),
    "backend": _check_choice(KNOWN_BACKENDS),
    "timeout": _check_timeout,
    "nproc-per-node": _check_int,
    "baseline": _check_str,
    "select": _check_codes,
    "ignore": _check_codes,
    "format": _check_choice(REPORT_FORMATS),
}


@dataclass(frozen=True)
class Config:
    path: Path | None  # the file it came from; None when there is none
    values: dict

    @property
    def directory(self) -> Path:
        return self.path.parent if self.path else Path.cwd()


def _read_table(path: Path) -> dict | None:
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


def validate_config(path: Path, table: dict) -> dict:
    values = {}
    for key, value in table.items():
        check = CONFIG_KEYS.get(key)
        if check is None:
            close = difflib.get_close_matches(str(key).replace("_", "-"), CONFIG_KEYS, n=1)
            hint = f" (did you mean `{close[0]}`?)" if close else f" (known: {', '.join(CONFIG_KEYS)})"
            raise DoctorError(f"{path}: unknown key `{key}`{hint}")
        values[key] = check(path, key, value)
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


def _config_target(entry: dict, base: Path) -> TargetSpec:
    """A target from the config: its paths are relative to the config file's directory."""

    def resolve(text: str | None) -> str | None:
        if text is None:
            return None
        file, sep, name = text.rpartition(":")
        if sep and file and re.fullmatch(r"[A-Za-z_][\w.]*", name) and not (base / text).exists():
            return f"{base / file}:{name}"  # file.py:function: only the file is a path
        return str(base / text)

    return parse_target(resolve(entry.get("target")), entry.get("module"), resolve(entry.get("inputs")), entry["args"])


def _check_flags(flags: dict) -> None:
    """The command line's values, checked as the config file's are."""
    for key, check in (
        ("fail-on", _check_choice(SEVERITIES)),
        ("backend", _check_choice(KNOWN_BACKENDS)),
        ("format", _check_choice(REPORT_FORMATS)),
        ("select", _check_codes),
        ("ignore", _check_codes),
    ):
        if key in flags and flags[key] is not None:
            check(Path("command line"), f"--{key}", flags[key])


def _targets_to_run(
    target: str | None, module: str | None, inputs: str | None, args: list[str], config: Config
) -> tuple[TargetSpec, ...]:
    """The command line's target, else the config file's `targets`."""
    if target or module:
        return (parse_target(target, module, inputs, args),)
    if "targets" in config.values:
        return tuple(_config_target(entry, config.directory) for entry in config.values["targets"])
    where = f" in {config.path}" if config.path else ""
    raise DoctorError(
        f"missing TARGET: give a script (train.py), -m MODULE or file.py:function, or list `targets`{where}"
    )


_RUN_ONLY_FLAGS = ("timeout", "backend", "nproc-per-node")  # they change how a target runs: nothing runs here


def _check_capture_usage(
    capture: Path, target: str | None, module: str | None, inputs: str | None, args: list[str], flags: dict
) -> None:
    """--from-capture gates what a run left: a target or a flag about running one is a mistake, said as such.
    The config's `targets` and run keys are simply not used (the same config serves live checks)."""
    if target or module or inputs or args:
        raise DoctorError("give a TARGET to run or --from-capture DIR to gate a kept capture, not both")
    given = next((f"--{key}" for key in _RUN_ONLY_FLAGS if flags.get(key) is not None), None)
    if given is not None:
        raise DoctorError(f"{given} applies to running a target; --from-capture DIR runs nothing")
    if not capture.exists():
        raise DoctorError(f"--from-capture {capture}: no such file or directory")


def _baseline_path(flags: dict, config: Config) -> Path | None:
    """--baseline, else the config's `baseline` (relative to the config file), else the default for an update."""
    if flags.get("baseline") is not None:
        return Path(flags["baseline"])
    if config.values.get("baseline"):
        return config.directory / config.values["baseline"]
    if flags.get("update-baseline"):
        return config.directory / DEFAULT_BASELINE
    return None


def check_settings(
    target: str | None,
    args: list[str],
    module: str | None,
    inputs: str | None,
    config_file: Path | None,
    flags: dict,
    capture: Path | None = None,
) -> CheckSettings:
    """Flags > the config file > defaults. `flags` holds only the options given on the command line.
    With `capture` (--from-capture) nothing is run: the config is found from the current directory."""
    if capture is not None:
        _check_capture_usage(capture, target, module, inputs, args, flags)
    if module and target is not None:
        args, target = [target, *args], None
    given = target or (inputs.rpartition(":")[0] if inputs else None)
    start = Path(given).expanduser().resolve().parent if given and Path(given).parent.exists() else Path.cwd()
    config = load_config(config_file, start)
    merged = {**config.values, **{k: v for k, v in flags.items() if v is not None}}
    targets = _targets_to_run(target, module, inputs, args, config) if capture is None else ()
    _check_flags(flags)
    if merged.get("timeout") is not None and merged["timeout"] <= 0:
        raise DoctorError("--timeout must be a positive number of seconds")
    gate = GateCriteria(
        fullgraph=bool(merged.get("fullgraph", False)),
        max_graph_breaks=merged.get("max-graph-breaks"),
        max_recompiles=merged.get("max-recompiles"),
        fail_on=merged.get("fail-on"),
    ).or_default()
    check_output_path(flags.get("output"))
    baseline = _baseline_path(flags, config)
    return CheckSettings(
        targets=targets,
        gate=gate,
        baseline=Path(baseline).resolve() if baseline is not None else None,
        update_baseline=bool(flags.get("update-baseline")),
        select=tuple(merged.get("select", ())),
        ignore=tuple(merged.get("ignore", ())),
        backend=merged.get("backend"),
        format=merged.get("format", "terminal"),
        output=flags.get("output"),
        timeout_s=merged.get("timeout"),
        config_file=config.path,
        nproc_per_node=merged.get("nproc-per-node") or None,
        capture=capture,
    )
