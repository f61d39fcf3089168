"""Writes the graph-break registries bundled with the doctor (data/graph_break_registries.json), which
graph_break_registry.py reads: per GB id, torch's first (current) entry once per distinct text, with the supported
releases that have it. Run after adding a supported release, with that release's registry (its version and path):

    python -m torchcompile_doctor.analysis.registry_bundle 2.15.0=$SITE/torch/_dynamo/graph_break_registry.json

Releases already in the bundle and not given are kept."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from torchcompile_doctor.analysis.graph_break_registry import BUNDLED, bundled_release, bundled_releases
from torchcompile_doctor.torch_releases import release_of

ABOUT = (
    "torch/_dynamo/graph_break_registry.json of each supported torch release: per GB id, torch's first variant "
    "(gb_type, explanation, hints), once per distinct text, with the releases that have it"
)


def _release_key(release: str) -> tuple[int, ...]:
    return tuple(int(part) for part in release.split("."))


def _first_variant(variants: list[dict[str, Any]]) -> dict[str, Any]:
    first = variants[0]
    return {
        "Gb_type": first.get("Gb_type"),
        "Explanation": first.get("Explanation", ""),
        "Hints": first.get("Hints") or [],
    }


def _read_registry(path: Path) -> dict[str, dict[str, Any]]:
    """torch's registry file -> {GB id: its first variant}."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise SystemExit(f"{path}: cannot read a graph-break registry ({error})") from None
    if not isinstance(data, dict):
        raise SystemExit(f"{path}: not a graph-break registry")
    return {
        gb_id: _first_variant(variants) for gb_id, variants in data.items() if isinstance(variants, list) and variants
    }


def _text(variant: dict[str, Any]) -> dict[str, Any]:
    """A bundled variant without the releases that have it: what torch says for the GB id."""
    return {key: value for key, value in variant.items() if key != "releases"}


def _merged(per_release: dict[str, dict[str, dict[str, Any]]], order: list[str]) -> dict[str, list[dict[str, Any]]]:
    """{GB id: each distinct text it had, with the releases (in `order`) that have that text}."""
    entries: dict[str, list[dict[str, Any]]] = {}
    for release in order:
        for gb_id, variant in per_release[release].items():
            texts = entries.setdefault(gb_id, [])
            same = next((known for known in texts if _text(known) == _text(variant)), None)
            if same is None:
                texts.append(same := {"releases": [], **_text(variant)})
            same["releases"].append(release)
    return dict(sorted(entries.items()))


def bundle(registries: dict[str, tuple[str, Path]], into: Path = BUNDLED) -> dict[str, Any]:
    """Write the bundle from {release: (torch version, its graph_break_registry.json)}, keeping the releases
    already in `into` that are not given."""
    versions = {r: v for r, v in bundled_releases(into).items() if r not in registries}
    per_release = {release: {k: v[0] for k, v in bundled_release(release, into).items()} for release in versions}
    for release, (version, path) in registries.items():
        versions[release] = version
        per_release[release] = _read_registry(path)
    order = sorted(versions, key=_release_key)
    written = {"about": ABOUT, "releases": {r: versions[r] for r in order}, "entries": _merged(per_release, order)}
    into.write_text(json.dumps(written, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return written


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("registry", nargs="+", metavar="VERSION=PATH", help="a torch version and its registry file")
    parser.add_argument("--into", type=Path, default=BUNDLED)
    args = parser.parse_args(argv)
    given = {}
    for item in args.registry:
        version, _, path = item.partition("=")
        release = release_of(version)
        if release is None or not path:
            parser.error(f"{item}: give VERSION=PATH, e.g. 2.15.0=.../torch/_dynamo/graph_break_registry.json")
        given[release] = (version, Path(path))
    written = bundle(given, args.into)
    print(f"{args.into}: torch {', '.join(written['releases'])}; {len(written['entries'])} GB ids")


if __name__ == "__main__":
    main()
