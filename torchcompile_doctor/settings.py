"""Frozen settings for each command, built from the command line and checked before anything runs."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from torchcompile_doctor.capture.target import TargetSpec, parse_target
from torchcompile_doctor.errors import DoctorError
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
    target: TargetSpec
    backend: str | None
    format: str
    output: Path | None
    artifacts: Path | None
    timeout_s: float | None
    fresh_inductor_cache: bool = False
    try_fixes: bool = False
    jobs: int = 2

    @classmethod
    def from_cli(
        cls,
        target,
        args,
        module,
        inputs,
        backend,
        fmt,
        output,
        artifacts,
        timeout,
        fresh_inductor_cache=False,
        try_fixes=False,
        jobs=2,
    ) -> ExplainSettings:
        if module and target is not None:  # `-m pkg -- --flag`: the first word after `--` is an argument
            args, target = [target, *args], None
        if backend is not None and backend not in KNOWN_BACKENDS:
            raise DoctorError(f"unknown --backend {backend!r}; choose one of: {', '.join(KNOWN_BACKENDS)}")
        if timeout is not None and timeout <= 0:
            raise DoctorError("--timeout must be a positive number of seconds")
        if jobs < 1:
            raise DoctorError("--jobs must be at least 1")
        if artifacts is not None and artifacts.exists() and not artifacts.is_dir():
            raise DoctorError(f"--artifacts {artifacts} exists and is not a directory")
        return cls(
            target=parse_target(target, module, inputs, args),
            backend=backend,
            format=check_format(fmt),
            output=output,
            artifacts=artifacts.resolve() if artifacts else None,
            timeout_s=timeout,
            fresh_inductor_cache=fresh_inductor_cache,
            try_fixes=try_fixes,
            jobs=jobs,
        )
