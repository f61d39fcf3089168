"""What to run: a script, a module (-m), or a function with example inputs. Parsed and checked
in the parent without importing or executing anything of the user's."""

from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from torchcompile_doctor.errors import DoctorError

_MODULE_NAME = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")


@dataclass(frozen=True)
class TargetSpec:
    kind: str  # "script" | "module" | "function"
    path: str | None = None  # absolute path of the script or of the function's file
    module: str | None = None
    function: str | None = None
    inputs_path: str | None = None
    inputs_function: str | None = None
    args: tuple[str, ...] = field(default_factory=tuple)
    cwd: str = ""

    @property
    def display(self) -> str:
        if self.kind == "module":
            return f"-m {self.module}"
        if self.kind == "function":
            return f"{self.path}:{self.function}"
        return str(self.path)

    @property
    def root(self) -> str:
        """The directory the user's own code lives in (paths are shown relative to it)."""
        if self.path:
            return os.path.dirname(self.path)
        return self.cwd

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def _check_python_file(text: str, what: str) -> Path:
    path = Path(text).expanduser()
    if not path.exists():
        raise DoctorError(f"{what} not found: {text}")
    if path.is_dir():
        raise DoctorError(f"{what} is a directory, not a Python file: {text} (use -m PACKAGE.MODULE for packages)")
    if path.suffix not in (".py", ""):
        raise DoctorError(f"{what} is not a Python file: {text}")
    try:
        source = path.read_bytes()
    except OSError as error:
        raise DoctorError(f"cannot read {what.lower()} {text}: {error.strerror}") from None
    try:
        compile(source, str(path), "exec", dont_inherit=True)  # parse only: nothing is executed
    except SyntaxError as error:
        if error.lineno is None:  # e.g. null bytes: not Python source at all
            raise DoctorError(f"{what} is not Python source: {text} ({error.msg})") from None
        raise DoctorError(f"syntax error in {text}:{error.lineno}: {error.msg}") from None
    except ValueError as error:  # null bytes on older Pythons
        raise DoctorError(f"{what} is not Python source: {text} ({error})") from None
    return path.resolve()


def _split_function(text: str) -> tuple[str, str] | None:
    """`file.py:name` -> (file, name); None when TEXT names no function."""
    head, sep, name = text.rpartition(":")
    if sep and head and re.fullmatch(r"[A-Za-z_][\w.]*", name):
        return head, name
    return None


def parse_target(
    target: str | None, module: str | None, inputs: str | None, args: list[str], cwd: str | None = None
) -> TargetSpec:
    cwd = cwd or os.getcwd()
    if module:
        if target:
            raise DoctorError("give either a TARGET or -m MODULE, not both")
        if not _MODULE_NAME.match(module):
            raise DoctorError(f"not a module name: {module!r} (expected e.g. mypkg.train)")
        return TargetSpec(kind="module", module=module, args=tuple(args), cwd=cwd)
    if not target:
        raise DoctorError("missing TARGET: a script (train.py), -m MODULE, or file.py:function --inputs file.py:fn")
    function = _split_function(target) if not Path(target).exists() else None
    if function is None:
        if inputs:
            raise DoctorError("--inputs needs a function target (file.py:function)")
        path = _check_python_file(target, "Target")
        return TargetSpec(kind="script", path=str(path), args=tuple(args), cwd=cwd)
    file, name = function
    path = _check_python_file(file, "Target file")
    if not inputs:
        raise DoctorError(f"function target {target} needs --inputs FILE.py:FUNCTION returning the example inputs")
    split = _split_function(inputs)
    if split is None:
        raise DoctorError(f"--inputs must be FILE.py:FUNCTION, got {inputs!r}")
    inputs_path = _check_python_file(split[0], "Inputs file")
    return TargetSpec(
        kind="function",
        path=str(path),
        function=name,
        inputs_path=str(inputs_path),
        inputs_function=split[1],
        args=tuple(args),
        cwd=cwd,
    )
