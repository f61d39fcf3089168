"""The baseline file of `doctor check`: findings a project accepts for now.

Entries are keyed by torch release (break counts change between releases) and by target, and matched
by fingerprint (rule code + file relative to the target + function + source text, never the line
number), so moving code keeps them matched. The file is JSON, read with `json` only.

    {"version": 1, "torch": {"2.13.0": {"train.py": [{fingerprint, code, file, function, source, count}]}}}
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from torchcompile_doctor.errors import DoctorError
from torchcompile_doctor.model.gate import BaselineSummary, BaselineUpdate
from torchcompile_doctor.model.report import Finding, Report

BASELINE_VERSION = 1
_ENTRY_KEYS: dict[str, type | tuple[type, ...]] = {
    "fingerprint": str,
    "code": str,
    "file": str,
    "function": str,
    "source": (str, type(None)),
    "count": int,
}


def torch_release(version: str | None) -> str:
    """2.13.0+cpu and 2.13.0+cu128 make the same breaks: the local build tag is dropped."""
    return re.sub(r"\+.*$", "", version or "unknown")


@dataclass(frozen=True)
class Baseline:
    path: Path
    sections: dict[str, Any]  # torch release -> target -> [entry]


def _bad(path: Path, problem: str) -> DoctorError:
    return DoctorError(f"baseline {path} {problem}; rewrite it with --update-baseline")


def read_baseline(path: Path) -> Baseline:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise DoctorError(f"cannot read baseline {path}: {error.strerror}") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise _bad(path, f"is not valid JSON ({error})") from None
    if not isinstance(document, dict) or document.get("version") != BASELINE_VERSION:
        raise _bad(path, f"is not a version-{BASELINE_VERSION} doctor baseline")
    sections = document.get("torch")
    if not isinstance(sections, dict):
        raise _bad(path, "has no `torch` table")
    for release, targets in sections.items():
        if not isinstance(targets, dict):
            raise _bad(path, f"has a malformed section for torch {release}")
        for entries in targets.values():
            if not isinstance(entries, list) or not all(_valid_entry(e) for e in entries):
                raise _bad(path, f"has malformed entries for torch {release}")
    return Baseline(path, sections)


def open_baseline(path: Path | None, update: bool) -> Baseline | None:
    """The baseline to gate against, read before anything runs; None when there is none (yet: with
    `update`, the run writes it)."""
    if path is None:
        return None
    if path.exists():
        return read_baseline(path)
    if update:
        return None
    raise DoctorError(f"baseline {path} does not exist; create it with --update-baseline")


def _valid_entry(entry: object) -> bool:
    return isinstance(entry, dict) and all(isinstance(entry.get(k), t) for k, t in _ENTRY_KEYS.items())


def target_key(report: Report, base: Path) -> str:
    """The target as written relative to the baseline's directory, so the file is portable."""
    if report.target.startswith("-m "):
        return report.target
    path, sep, function = report.target.partition(":")
    try:
        path = str(Path(path).relative_to(base))
    except ValueError:
        pass
    return path + sep + function


def entry_for(finding: Finding) -> dict[str, Any]:
    where = finding.user_frame or finding.location
    return {
        "fingerprint": finding.fingerprint,
        "code": finding.code,
        "file": (where.display_file or where.file) if where else "",
        "function": where.function if where else "",
        "source": where.source if where else None,
        "count": finding.count,
    }


def known_findings(
    baseline: Baseline, report: Report, updated: BaselineUpdate | None = None
) -> tuple[dict[str, dict[str, Any]], BaselineSummary]:
    """The baseline entries for this report's torch release and target (fingerprint -> entry), and what
    to tell the user about them; the gate adds how many findings are known, new and worse."""
    release = torch_release(report.torch_version)
    key = target_key(report, baseline.path.parent)
    used_release, note = release, None
    section = baseline.sections.get(release)
    if section is None and baseline.sections:
        used_release = sorted(baseline.sections)[-1]
        section = baseline.sections[used_release]
        note = (
            f"the baseline {baseline.path.name} was written for torch {used_release}, this is torch {release}: "
            "graph breaks and their counts change between releases, so it is used but may not fit; "
            "refresh it with --update-baseline"
        )
    entries = (section or {}).get(key, [])
    known = {entry["fingerprint"]: entry for entry in entries}
    present = {f.fingerprint for f in report.findings}
    fixed = sorted(f"{e['code']} {e['file']} in {e['function']}" for e in entries if e["fingerprint"] not in present)
    summary = BaselineSummary(str(baseline.path), used_release, note, tuple(fixed), updated)
    return known, summary


def updated_document(
    baseline: Baseline | None, reports: list[Report], base: Path
) -> tuple[dict[str, Any], BaselineUpdate]:
    """The baseline rewritten for these reports: their targets' entries replaced (fixed ones pruned),
    other targets and other torch releases kept. Returns the document and what changed."""
    previous = baseline.sections if baseline else {}
    sections = {release: dict(targets) for release, targets in previous.items()}
    added = pruned = kept = 0
    for report in reports:
        release = torch_release(report.torch_version)
        key = target_key(report, base)
        before = {e["fingerprint"] for e in sections.get(release, {}).get(key, [])}
        entries = sorted(
            (entry_for(f) for f in report.findings), key=lambda e: (e["file"], e["code"], e["fingerprint"])
        )
        now = {e["fingerprint"] for e in entries}
        added += len(now - before)
        pruned += len(before - now)
        kept += len(now & before)
        sections.setdefault(release, {})[key] = entries
    return {"version": BASELINE_VERSION, "torch": sections}, BaselineUpdate(added, pruned, kept)


def write_baseline(path: Path, document: dict[str, Any]) -> None:
    try:
        path.write_text(json.dumps(document, indent=2, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
    except OSError as error:
        raise DoctorError(f"cannot write baseline {path}: {error.strerror}") from None
