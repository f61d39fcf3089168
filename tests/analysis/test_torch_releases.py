"""The supported torch releases (torch_releases.py) and the graph-break registry of each (bundled in
data/graph_break_registries.json, written by registry_bundle.py): which registry a re-read uses, what the report
says of it, and what the doctor says of a torch outside the range."""

from __future__ import annotations

import dataclasses
import json
import tomllib
from pathlib import Path
from types import SimpleNamespace

import pytest
from support.captures import SAMPLE_CAPTURES, snapshot_context
from support.paths import REPO

from torchcompile_doctor import cli
from torchcompile_doctor.analysis import analyze, graph_break_registry
from torchcompile_doctor.analysis.analyze import registry_note
from torchcompile_doctor.analysis.graph_break_registry import (
    _parse,
    bundled_release,
    bundled_releases,
    installed_registry_path,
    registry_for_capture,
)
from torchcompile_doctor.analysis.registry_bundle import bundle
from torchcompile_doctor.events.load import load_artifacts
from torchcompile_doctor.events.model import TorchVersion
from torchcompile_doctor.torch_releases import (
    SUPPORTED_RELEASES,
    installed_torch_version,
    nearest_supported,
    outside_range_note,
    release_of,
)

INSTALLED = release_of(installed_torch_version())
OTHER = next(release for release in SUPPORTED_RELEASES if release != INSTALLED)  # a supported release not installed


def test_pyproject_asks_for_the_oldest_supported_torch_and_no_cap():
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    (torch,) = [d for d in project["dependencies"] if d.startswith("torch")]
    assert torch == f"torch>={SUPPORTED_RELEASES[0]}"  # a newer torch installs; the doctor says it is untested


def test_the_installed_version_read_from_torchs_text_is_its_distributions():
    # read from torch/version.py, not through importlib.metadata (issue 36: 3 MB of every report): the same answer
    from importlib import metadata

    # torch.__version__ carries the build's local part (2.15.0+cu132), which the CUDA wheel's metadata leaves out
    assert (installed_torch_version() or "").split("+")[0] == metadata.version("torch").split("+")[0]


def test_the_bundle_holds_the_registry_of_each_supported_release():
    assert tuple(bundled_releases()) == SUPPORTED_RELEASES
    sizes = [len(bundled_release(release)) for release in SUPPORTED_RELEASES]
    assert sizes == sorted(sizes) and sizes[0] > 400  # torch adds GB ids release by release


def test_the_bundled_copy_of_the_installed_release_is_its_registry():
    version = bundled_releases().get(INSTALLED or "")
    path = installed_registry_path()
    if path is None or version is None or installed_torch_version().split("+")[0] != version:
        pytest.skip(f"the bundle took {INSTALLED} from torch {version}; {installed_torch_version()} is installed")
    installed = _parse(json.loads(path.read_text(encoding="utf-8")), "installed")
    bundled = _parse(bundled_release(INSTALLED), "bundled")
    assert [dataclasses.astuple(installed.get(gb)) for gb in bundled_release(INSTALLED)] == [
        dataclasses.astuple(bundled.get(gb)) for gb in bundled_release(INSTALLED)
    ]
    assert len(installed) == len(bundled)


def test_bundling_keeps_one_text_per_change_with_the_releases_that_have_it(tmp_path):
    def registry(name: str, **entries: str) -> Path:
        path = tmp_path / name
        path.write_text(
            json.dumps({gb: [{"Gb_type": t, "Explanation": "e", "Hints": []}] for gb, t in entries.items()})
        )
        return path

    into = tmp_path / "bundle.json"
    bundle({"2.11": ("2.11.0", registry("a.json", GB0001="old", GB0002="same"))}, into)
    bundle({"2.12": ("2.12.1", registry("b.json", GB0001="new", GB0002="same", GB0003="added"))}, into)
    written = json.loads(into.read_text())
    assert written["releases"] == {"2.11": "2.11.0", "2.12": "2.12.1"}
    assert [(v["releases"], v["Gb_type"]) for v in written["entries"]["GB0001"]] == [
        (["2.11"], "old"),
        (["2.12"], "new"),
    ]
    assert [v["releases"] for v in written["entries"]["GB0002"]] == [["2.11", "2.12"]]
    assert bundled_release("2.11", into).keys() == {"GB0001", "GB0002"}
    assert bundled_release("2.12", into)["GB0001"][0]["Gb_type"] == "new"


def test_a_capture_of_the_installed_release_reads_the_installed_registry():
    if installed_registry_path() is None:
        pytest.skip("no torch with a graph-break registry is installed here")
    registry = registry_for_capture(installed_torch_version())
    assert registry.source.startswith("installed torch (")
    assert registry_note(registry).startswith("graph-break registry: the installed torch's (")


def test_a_capture_of_another_supported_release_reads_that_releases_bundled_registry():
    registry = registry_for_capture(f"{OTHER}.0+cu130")
    assert registry.source == f"bundled torch {OTHER}" and len(registry) == len(bundled_release(OTHER))
    note = registry_note(registry)
    assert note.startswith(f"graph-break registry: torch {OTHER}'s, bundled with torchcompile-doctor (")
    assert f"the capture's torch is {OTHER}.0+cu130" in note


@pytest.mark.parametrize(("version", "nearest"), [("2.9.1", "2.11"), ("2.16.0", "2.15"), ("3.0.0", "2.15")])
def test_a_capture_of_a_release_outside_the_range_reads_the_nearest_supported_registry(version, nearest):
    assert nearest_supported(release_of(version)) == nearest
    registry = registry_for_capture(version)
    assert registry.source == f"bundled torch {nearest}"
    assert f"the nearest supported release to the capture's torch {version};" in registry_note(registry)


def test_a_torch_outside_the_range_is_named_in_one_line():
    assert outside_range_note("2.13.0+cpu") is None and outside_range_note(None) is None
    note = outside_range_note("2.16.0")
    assert note and "\n" not in note
    assert note.startswith("torch 2.16.0 is outside the releases torchcompile-doctor supports (2.11 to 2.15)")


def test_a_report_of_a_torch_outside_the_range_says_so():
    """The capture read as if torch 2.16.0 had made it (the log changed in memory, the capture left as it is)."""
    folder = SAMPLE_CAPTURES / "item_metric.capture"
    log = load_artifacts(folder)
    log.bootstrap = [dataclasses.replace(b, torch_version="2.16.0") for b in log.bootstrap]
    log.torch_versions = [TorchVersion("2.16.0")]
    context = snapshot_context(folder, log.bootstrap[-1].target, str(folder))
    report = analyze(log, context)
    assert outside_range_note("2.16.0") in report.notes
    assert not any("outside the releases" in note for note in analyze(load_artifacts(folder), context).notes)


def test_a_live_run_outside_the_range_says_so_on_stderr(capsys):
    reports = [SimpleNamespace(torch_version="2.16.0"), SimpleNamespace(torch_version="2.16.0")]
    cli._say_torch_outside_range(reports)
    cli._say_torch_outside_range([SimpleNamespace(torch_version="2.13.0+cpu")])
    assert capsys.readouterr().err == f"doctor: {outside_range_note('2.16.0')}\n"


@pytest.mark.parametrize(
    ("captured", "installed", "reads_installed"),
    [("2.16.0", "2.16.1", True), ("2.16.0", "2.17.0", True), ("2.16.0", "2.14.1", False), ("2.15.0", "2.16.0", False)],
)
def test_the_installed_registry_reads_a_capture_newer_than_the_bundle_when_torch_here_is_newer_too(
    monkeypatch, tmp_path, captured, installed, reads_installed
):
    """A capture of a release past the bundle's newest (2.16, once released): the installed torch's registry, when
    it is past the bundle too, knows GB ids the bundle does not; a supported release keeps its own bundled copy."""
    registry_file = tmp_path / "graph_break_registry.json"
    registry_file.write_text(
        json.dumps({"GB9999": [{"Gb_type": "a break only 2.16 has", "Explanation": "new", "Hints": []}]}),
        encoding="utf-8",
    )
    monkeypatch.setattr(graph_break_registry, "installed_registry_path", lambda: registry_file)
    monkeypatch.setattr(graph_break_registry, "installed_torch_version", lambda: installed)
    registry_for_capture.cache_clear()
    try:
        registry = registry_for_capture(captured)
        assert (registry.get("GB9999") is not None) == reads_installed, registry.source
        assert registry.source.startswith("installed torch (") == reads_installed
    finally:
        registry_for_capture.cache_clear()


@pytest.mark.parametrize(
    ("recorded", "installed", "same"),
    [("2.15.0", "2.15.0+cu132", True), ("2.13.0+cpu", "2.13.0+cpu", True), ("2.14.1", "2.15.0+cu132", False)],
)
def test_a_capture_of_the_installed_torch_is_told_by_its_public_version(monkeypatch, recorded, installed, same):
    """The capture records the distribution's version (the CUDA wheel's `2.15.0`), the installed torch is read from
    its version.py (`2.15.0+cu132`): the same torch, so `check --from-capture` names no registry, as the live check
    (the 2.15 lane's test_check caught the difference)."""
    from torchcompile_doctor import pipeline, torch_releases
    from torchcompile_doctor.events.model import BootstrapInfo, EventLog

    monkeypatch.setattr(torch_releases, "installed_torch_version", lambda: installed)
    log = EventLog()
    log.bootstrap.append(BootstrapInfo(recorded, "3.11.7", "train.py", (), None))
    assert pipeline._captured_by_installed_torch(log) is same
