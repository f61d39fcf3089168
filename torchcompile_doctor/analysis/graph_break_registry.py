"""torch's graph-break registry (`torch/_dynamo/graph_break_registry.json`): GB id <-> gb_type,
explanation and hints. A live run reads the installed torch's (found without importing torch); a re-read capture
reads the registry of the torch that made it: the installed torch's when it is the same release, else the copy of
that release bundled with the doctor (data/graph_break_registries.json, written by registry_bundle.py: per GB id,
torch's entries with the releases that have them), else the nearest supported release's."""

from __future__ import annotations

import importlib.util
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from torchcompile_doctor.torch_releases import (
    SUPPORTED_RELEASES,
    installed_torch_version,
    nearest_supported,
    release_of,
)

BUNDLED = Path(__file__).resolve().parent.parent / "data" / "graph_break_registries.json"

# torch/_dynamo/graph_break_hints.py: the hint lists that say what kind of break it is.
_HINT_CLASSES = (
    ("user_error", "Your code may result in an error when running in eager"),
    ("dynamo_bug", "This is likely to be a Dynamo bug"),
    ("fundamental", "This graph break is fundamental"),
    ("supportable", "It may be possible to write Dynamo tracing rules"),
    ("difficult", "This graph break may be difficult to debug"),
    ("caused_by_earlier_break", "may have been caused by an earlier graph break"),
)


@dataclass(frozen=True)
class RegistryEntry:
    gb_id: str
    gb_type: str
    explanation: str
    hints: tuple[str, ...]

    @property
    def hint_class(self) -> str | None:
        text = " ".join(self.hints)
        return next((name for name, marker in _HINT_CLASSES if marker in text), None)


class GraphBreakRegistry:
    def __init__(self, entries: list[RegistryEntry], source: str, chosen_because: str = "") -> None:
        self.source = source  # "installed torch (PATH)", "bundled torch 2.13", "given (PATH)", "none"
        self.chosen_because = chosen_because  # for a re-read: the capture's torch, when it is not the installed one
        self._by_id = {e.gb_id: e for e in entries}
        self._by_type: dict[str, list[RegistryEntry]] = {}
        for entry in entries:
            self._by_type.setdefault(entry.gb_type, []).append(entry)

    def __len__(self) -> int:
        return len(self._by_id)

    def get(self, gb_id: str | None) -> RegistryEntry | None:
        return self._by_id.get(gb_id) if gb_id else None

    def lookup(self, gb_type: str, text: str = "") -> RegistryEntry | None:
        """The entry for a gb_type; where several share it, the one whose explanation matches `text`."""
        candidates = self._by_type.get(gb_type.strip(), [])
        if len(candidates) > 1 and text:
            for entry in candidates:
                pattern = re.escape(entry.explanation[:80])
                pattern = re.sub(r"\\\{[^}]*\\\}", ".*?", pattern)
                if re.search(pattern, text, re.S):
                    return entry
        return candidates[0] if candidates else None


def _parse(data: object, source: str, chosen_because: str = "") -> GraphBreakRegistry:
    entries = []
    for gb_id, variants in (data or {}).items() if isinstance(data, dict) else []:
        for variant in variants if isinstance(variants, list) else []:
            if isinstance(variant, dict) and isinstance(variant.get("Gb_type"), str):
                entries.append(
                    RegistryEntry(
                        gb_id=gb_id,
                        gb_type=variant["Gb_type"],
                        explanation=str(variant.get("Explanation", "")),
                        hints=tuple(str(h) for h in variant.get("Hints") or []),
                    )
                )
                break  # the first variant is the current one
    return GraphBreakRegistry(entries, source, chosen_because)


def installed_registry_path() -> Path | None:
    spec = importlib.util.find_spec("torch")  # locates torch without importing it
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / "_dynamo" / "graph_break_registry.json"
    return path if path.is_file() else None


def _read_json(path: Path) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


@lru_cache(maxsize=4)
def load_registry(path: Path | None = None) -> GraphBreakRegistry:
    """The registry of a live run: the given file, else the installed torch's, else the newest bundled release's."""
    for candidate, label in ((path, "given"), (installed_registry_path(), "installed torch")):
        data = _read_json(candidate) if candidate is not None else None
        if isinstance(data, dict):
            return _parse(data, f"{label} ({candidate})")
    return bundled_registry(SUPPORTED_RELEASES[-1])


def bundled_release(release: str, bundle: Path = BUNDLED) -> dict[str, list[dict[str, Any]]]:
    """One release's registry from the bundle, in torch's own format ({} when the bundle lacks the release)."""
    data = _read_json(bundle)
    entries = data.get("entries", {}) if isinstance(data, dict) else {}
    of_release = {
        gb_id: [variant for variant in variants if release in variant.get("releases", ())]
        for gb_id, variants in entries.items()
    }
    return {gb_id: variants for gb_id, variants in of_release.items() if variants}


def bundled_releases(bundle: Path = BUNDLED) -> dict[str, str]:
    """The releases the bundle holds, each with the torch version its registry was taken from."""
    data = _read_json(bundle)
    return dict(data.get("releases", {})) if isinstance(data, dict) else {}


@lru_cache(maxsize=8)
def bundled_registry(release: str, chosen_because: str = "") -> GraphBreakRegistry:
    """One release's registry as bundled with the doctor (empty when the bundle lacks the release)."""
    return _parse(bundled_release(release), f"bundled torch {release}", chosen_because)


@lru_cache(maxsize=8)
def registry_for_capture(torch_version: str | None) -> GraphBreakRegistry:
    """The registry of the torch that made a capture: the installed one when it is the same release, or when both
    are newer than every bundled release (a 2.16 capture read beside a 2.16 or 2.17 torch: its GB ids are nearer
    the installed registry than the bundle's newest), else the bundled copy of that release, else of the nearest
    supported release. A capture that names no torch gets the registry of a live run."""
    recorded = release_of(torch_version)
    if recorded is None:
        return load_registry()
    path = installed_registry_path()  # a torch without one (or a stand-in module) counts as none installed
    installed = installed_torch_version() if path else None
    data = _read_json(path) if path and _installed_serves(recorded, release_of(installed)) else None
    if isinstance(data, dict):
        newer = f"the capture's torch {torch_version} and the installed {installed} are newer than the bundle's newest"
        because = "" if release_of(installed) == recorded else f"{newer}, {SUPPORTED_RELEASES[-1]}"
        return _parse(data, f"installed torch ({path})", because)
    nearest = nearest_supported(recorded)
    whose = "the capture's torch is" if nearest == recorded else "the nearest supported release to the capture's torch"
    here = f"the installed one is {installed}" if installed else "torch is not installed here"
    return bundled_registry(nearest, f"{whose} {torch_version}; {here}")


def _installed_serves(recorded: str, installed: str | None) -> bool:
    """The installed torch's registry reads the capture: the same release, or both past the bundle's newest."""
    if installed is None:
        return False
    return installed == recorded or (_newer_than_bundle(recorded) and _newer_than_bundle(installed))


def _newer_than_bundle(release: str) -> bool:
    newest = SUPPORTED_RELEASES[-1]
    return tuple(map(int, release.split("."))) > tuple(map(int, newest.split(".")))
