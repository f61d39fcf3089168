"""Which of the variables torch reads the program set or removed while it ran (`os.environ[...] = ...`,
`os.putenv`, `del os.environ[...]`), seen through Python's audit events. torch reads them when it, Dynamo or
inductor is imported: a program that sets them must import torch itself, so `doctor fix` measures such a
program's trials in fresh processes only (capture/warm_server.py imports torch before the program runs). Other
variables (numpy's `OPENBLAS_MAIN_FREE`, the program's own) are not torch's business."""

from __future__ import annotations

import os
import sys
from collections.abc import Collection
from pathlib import Path
from typing import Any

# torch's own variables and those of the libraries it loads when imported (OpenMP, MKL, CUDA, Triton)
TORCH_READS = ("TORCH", "PYTORCH", "OMP_", "GOMP_", "KMP_", "MKL_", "CUDA", "NVIDIA_", "TRITON_", "NCCL_")


class EnvironmentWatch:
    """From its creation on, the names of torch's variables the program gave a value other than the one it started
    with, or removed; the doctor's own variables (`ignored`) left out."""

    def __init__(self, ignored: Collection[str]) -> None:
        self._start = dict(os.environ)
        self._ignored = frozenset(ignored)
        self.changed: set[str] = set()
        sys.addaudithook(self._heard)  # an audit hook stays for the life of the process: it only notes names

    def _heard(self, event: str, args: tuple[Any, ...]) -> None:
        if event not in ("os.putenv", "os.unsetenv"):
            return
        name = os.fsdecode(args[0])
        if not name.startswith(TORCH_READS) or name in self._ignored:
            return
        value = os.fsdecode(args[1]) if event == "os.putenv" else None
        if self._start.get(name) != value:
            self.changed.add(name)

    def write(self, path: Path) -> None:
        """The names, one a line, when there are any."""
        if self.changed:
            path.write_text("".join(f"{name}\n" for name in sorted(self.changed)), encoding="utf-8")


def read_changed(path: Path) -> tuple[str, ...]:
    """The names a capture's program set (none when it set none)."""
    try:
        return tuple(path.read_text(encoding="utf-8").split())
    except OSError:
        return ()
