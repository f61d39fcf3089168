"""The user's project as `doctor fix` touches it: a trial copy that holds the change and runs as the project
would, the change as a unified diff, nothing written outside the project, and no user's edit lost."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from torchcompile_doctor.errors import DoctorError
from torchcompile_doctor.patches.project import (
    project_root,
    trial_copy,
    uncommitted,
    unified_diff,
    write_change,
)


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "data").mkdir()
    (root / "train.py").write_text("from pkg.model import SCALE\nprint('scale', SCALE)\n")
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "model.py").write_text("SCALE = 1\n")
    (root / "data" / "weights.bin").write_bytes(b"\0" * 1024)
    return root


def _git(root, *args):
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


@pytest.mark.slow
def test_a_trial_copy_runs_the_changed_code_and_reads_the_same_data(project):
    model = project / "pkg" / "model.py"
    with trial_copy(project, {model: "SCALE = 2\n"}) as copy:
        run = subprocess.run([sys.executable, "train.py"], cwd=copy, capture_output=True, text=True)
        assert run.stdout == "scale 2\n"
        assert (copy / "data").is_symlink() and (copy / "data" / "weights.bin").read_bytes() == b"\0" * 1024
        assert not (copy / "train.py").is_symlink()  # Python files are copies: imports resolve to the copy
    assert not copy.exists() and model.read_text() == "SCALE = 1\n"  # the project itself untouched


def test_nothing_outside_the_project_is_changed(project, tmp_path):
    elsewhere = tmp_path / "site-packages" / "lib.py"
    elsewhere.parent.mkdir()
    elsewhere.write_text("x = 1\n")
    with pytest.raises(DoctorError, match="outside the project"), trial_copy(project, {elsewhere: "x = 2\n"}):
        pass
    with pytest.raises(DoctorError, match="outside the project") as refused:
        write_change(project, {elsewhere: "x = 2\n"}, originals={elsewhere: "x = 1\n"})
    assert elsewhere.read_text() == "x = 1\n"
    # what users read names the file and the project, never this machine's folders
    assert str(tmp_path) not in str(refused.value) and "lib.py" in str(refused.value)


def test_packages_installed_in_the_project_are_not_its_files(project):
    """A `.venv` kept in the project: its site-packages are libraries, never changed (nor tried in a copy)."""
    installed = project / ".venv" / "lib" / "python3.11" / "site-packages" / "lib.py"
    installed.parent.mkdir(parents=True)
    installed.write_text("x = 1\n")
    with pytest.raises(DoctorError, match="or in packages installed there") as refused:
        write_change(project, {installed: "x = 2\n"}, originals={installed: "x = 1\n"})
    assert str(refused.value).startswith(".venv/lib/python3.11/site-packages/lib.py is outside the project ")
    assert installed.read_text() == "x = 1\n"


def test_the_change_is_a_unified_diff_with_paths_in_the_project(project):
    diff = unified_diff(project, {project / "pkg" / "model.py": "SCALE = 2\n"})
    assert diff == "--- a/pkg/model.py\n+++ b/pkg/model.py\n@@ -1 +1 @@\n-SCALE = 1\n+SCALE = 2\n"


def test_a_file_the_user_edited_meanwhile_stops_the_whole_change(project):
    model, train = project / "pkg" / "model.py", project / "train.py"
    originals = {model: model.read_text(), train: train.read_text()}
    model.write_text("SCALE = 3  # the user's edit while the fixes ran\n")
    with pytest.raises(DoctorError, match="changed while the fixes were measured"):
        write_change(project, {train: "print('x')\n", model: "SCALE = 2\n"}, originals=originals)
    assert train.read_text() == originals[train] and "the user's edit" in model.read_text()


@pytest.mark.slow
def test_the_project_is_the_git_work_tree_and_uncommitted_files_are_named(project):
    assert project_root(project / "pkg" / "model.py") == (project / "pkg").resolve()  # no git: the folder
    _git(project, "init", "-q")
    _git(project, "add", "-A")
    _git(project, "-c", "user.email=a@b", "-c", "user.name=t", "commit", "-qm", "start")
    assert project_root(project / "pkg" / "model.py") == project.resolve()
    model, train = project / "pkg" / "model.py", project / "train.py"
    assert uncommitted(project, [model, train]) == []
    model.write_text("SCALE = 5\n")
    assert uncommitted(project, [model, train]) == [model]


def test_a_file_that_cannot_be_written_stops_the_whole_change(project, monkeypatch):
    model, train = project / "pkg" / "model.py", project / "train.py"
    originals = {model: model.read_text(), train: train.read_text()}
    real_write = Path.write_text

    def full_disk(self, *args, **kwargs):
        if self.name.startswith(".model.py"):
            raise OSError(28, "No space left on device", str(self))
        return real_write(self, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", full_disk)
    with pytest.raises(DoctorError, match="No space left on device; nothing written"):
        write_change(project, {train: "print('new')\n", model: "SCALE = 2\n"}, originals=originals)
    assert train.read_text() == originals[train] and model.read_text() == originals[model]
    assert sorted(p.name for p in project.rglob("*doctor-new*")) == []  # no half-written file left behind
