"""torch's graph-break registry (`torch/_dynamo/graph_break_registry.json`): GB id <-> gb_type,
explanation and hints. Read from the installed torch when there is one (found without importing
torch), else from the copy shipped with the doctor."""

from __future__ import annotations

import importlib.util
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

BUNDLED = Path(__file__).resolve().parent.parent / "data" / "graph_break_registry.json"

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
    def __init__(self, entries: list[RegistryEntry], source: str) -> None:
        self.source = source
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


def _parse(data: object, source: str) -> GraphBreakRegistry:
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
    return GraphBreakRegistry(entries, source)


def installed_registry_path() -> Path | None:
    spec = importlib.util.find_spec("torch")  # locates torch without importing it
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / "_dynamo" / "graph_break_registry.json"
    return path if path.is_file() else None


@lru_cache(maxsize=4)
def load_registry(path: Path | None = None) -> GraphBreakRegistry:
    for candidate, label in (
        (path, "given"),
        (installed_registry_path(), "installed torch"),
        (BUNDLED, "bundled copy"),
    ):
        if candidate is None:
            continue
        try:
            return _parse(json.loads(candidate.read_text(encoding="utf-8")), f"{label} ({candidate})")
        except (OSError, ValueError):
            continue
    return GraphBreakRegistry([], "none")
