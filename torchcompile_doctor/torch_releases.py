"""The torch releases the doctor supports, and what it says of a torch outside them.

The doctor reads torch's own text (graph-break reasons, guard failures, GB ids, structured-log kinds), which moves
between releases: each supported release has recorded captures in the tests (tests/data/torch_versions) and CI runs
a second lane on the newest. Outside the range the doctor still reads what it can, and says so in one line.
Imports no torch: the version is what a capture recorded, or what the installed torch's version.py says.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

SUPPORTED_RELEASES = ("2.11", "2.12", "2.13", "2.14", "2.15")  # oldest first; pyproject.toml says torch>=2.11
_RELEASE = re.compile(r"^\s*(\d+)\.(\d+)")
_VERSION_LINE = re.compile(r"""^__version__\s*=\s*['"]([^'"]+)['"]""", re.MULTILINE)  # torch/version.py, generated


def release_of(version: str | None) -> str | None:
    """'2.13.0+cpu' -> '2.13'; None when the text names no release."""
    match = _RELEASE.match(version or "")
    return f"{int(match[1])}.{int(match[2])}" if match else None


def _key(release: str) -> tuple[int, int]:
    major, minor = release.split(".")
    return int(major), int(minor)


def nearest_supported(release: str) -> str:
    """The supported release closest to `release`: itself when supported, else the oldest or the newest."""
    if release in SUPPORTED_RELEASES:
        return release
    return SUPPORTED_RELEASES[0] if _key(release) < _key(SUPPORTED_RELEASES[0]) else SUPPORTED_RELEASES[-1]


def supported_range() -> str:
    return f"{SUPPORTED_RELEASES[0]} to {SUPPORTED_RELEASES[-1]}"


def outside_range_note(version: str | None) -> str | None:
    """One line when `version` (what made the capture) is outside the supported releases; None inside or unknown."""
    release = release_of(version)
    if release is None or release in SUPPORTED_RELEASES:
        return None
    return (
        f"torch {version} is outside the releases torchcompile-doctor supports ({supported_range()}): "
        "it reads torch's text as best it can, and some of it may be misread."
    )


def installed_torch_version() -> str | None:
    """The installed torch's version as `torch.__version__` says it (what a capture records), read from the text of
    its version.py: torch is not imported, nor importlib.metadata (3 MB and 0.02 s of every report, issue 36)."""
    spec = importlib.util.find_spec("torch")  # locates torch without importing it
    if spec is None or not spec.submodule_search_locations:
        return None
    try:
        text = (Path(next(iter(spec.submodule_search_locations))) / "version.py").read_text(encoding="utf-8")
    except OSError:
        return None
    found = _VERSION_LINE.search(text)
    return found[1] if found else None
