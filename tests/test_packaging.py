"""What the package needs to be used by others: the wheel built from this checkout carries the license text, the
data the doctor reads at run time (the rule catalogue, the bundled graph-break registries, the HTML template) and
both console scripts; its dependencies are ranges, not the lock's pins."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from email.parser import Parser

import pytest
from support.paths import REPO


@pytest.mark.slow
def test_the_wheel_ships_the_license_its_data_and_its_commands(tmp_path):
    build = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(REPO),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        # the machine's pip configuration stays out of it (the test session reads nothing outside the clone)
        env={**os.environ, "PIP_CONFIG_FILE": os.devnull, "HOME": str(tmp_path)},
    )
    assert build.returncode == 0, build.stderr[-2000:]
    (wheel,) = tmp_path.glob("torchcompile_doctor-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        (info,) = {name.split("/")[0] for name in names if name.endswith(".dist-info/METADATA")}
        metadata = Parser().parsestr(archive.read(f"{info}/METADATA").decode())
        entry_points = archive.read(f"{info}/entry_points.txt").decode()
        license_text = archive.read(f"{info}/licenses/LICENSE").decode()
    assert license_text == (REPO / "LICENSE").read_text() and "BSD 3-Clause License" in license_text
    assert metadata["License-Expression"] == "BSD-3-Clause" and metadata["License-File"] == "LICENSE"
    for data in (
        "torchcompile_doctor/rules/catalogue.yaml",
        "torchcompile_doctor/data/graph_break_registries.json",
        "torchcompile_doctor/renderers/templates/report.html.j2",
    ):
        assert data in names, data
    assert "doctor = torchcompile_doctor.cli:main" in entry_points
    assert "torchcompile-doctor = torchcompile_doctor.cli:main" in entry_points
    runtime = [r for r in metadata.get_all("Requires-Dist") if "extra ==" not in r]
    assert any(r.startswith("torch>=") for r in runtime) and not any("==" in r for r in runtime)
