"""What holds no record torch wrote, made in a test's own folder: the inputs on which `doctor check
--from-capture` and `doctor report` must refuse (exit 2) rather than pass on nothing (issue 34)."""

from __future__ import annotations

import random
from pathlib import Path

NOTHING_KINDS = ("empty folder", "random bytes", "empty log", "other programs' log")


def nothing_to_read(folder: Path, kind: str) -> Path:
    """One of NOTHING_KINDS written under `folder`; its path."""
    if kind == "empty folder":
        path = folder / "artifacts"
        path.mkdir()
    elif kind == "random bytes":
        path = folder / "artifact.bin"
        path.write_bytes(random.Random(34).randbytes(20_000))  # a fixed seed: the same bytes on every run
    elif kind == "empty log":
        path = folder / "job.log"
        path.write_bytes(b"")
    elif kind == "other programs' log":
        path = folder / "job.log"
        path.write_text("".join(f"epoch {n}: loss 0.{n:03d}\nsaved checkpoint-{n}.pt\n" for n in range(37)))
    else:
        raise ValueError(kind)
    return path
