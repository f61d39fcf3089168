"""The suite reads nothing outside its clone (support/confinement.py, installed by conftest.py for the session and,
through sitecustomize, for every process the session starts): a read outside fails, in this process and in a
child; the doctor's own question to the disk for a file a snapshot lacks is answered "absent" and fails nothing."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

import pytest
from support import confinement
from support.paths import REPO


def test_the_policy_keeps_the_clone_the_interpreter_and_the_session_temp():
    fence = confinement.Confinement((str(REPO), sys.prefix, tempfile.gettempdir()))
    assert not fence.outside(str(REPO / "tests" / "conftest.py"))
    assert not fence.outside(os.path.join(tempfile.gettempdir(), "a", "b.py"))
    assert not fence.outside("/proc/self/stat")
    assert fence.outside(str(REPO.parent / "wt-text3" / "tests" / "rules" / "training_blocks.py"))  # another worktree
    assert fence.outside(str(REPO) + "-other/file.py")  # a sibling whose name starts alike is outside
    assert fence.outside("/")


def test_a_link_inside_that_leads_out_is_outside(tmp_path):
    """Each root and each read resolved: a file or a folder inside that is a link to outside does not let a read
    out; a link from inside to inside does not refuse one."""
    inside, elsewhere = tmp_path / "inside", tmp_path / "elsewhere"
    for folder in (inside, elsewhere):
        folder.mkdir()
    (elsewhere / "data.txt").write_text("x")
    (inside / "kept.txt").write_text("x")
    (inside / "file_link.txt").symlink_to(elsewhere / "data.txt")
    (inside / "folder_link").symlink_to(elsewhere)
    (inside / "inner_link.txt").symlink_to(inside / "kept.txt")
    fence = confinement.Confinement((str(inside),))
    assert fence.outside(str(inside / "file_link.txt"))
    assert fence.outside(str(inside / "folder_link" / "data.txt"))
    assert fence.outside(str(inside / "folder_link" / ".." / "elsewhere" / "data.txt"))
    assert not fence.outside(str(inside / "inner_link.txt")) and not fence.outside(str(inside / "kept.txt"))


def test_this_session_is_confined():
    """The session's own temp folder is fresh, and a read outside the clone raises here."""
    assert os.environ[confinement.ROOTS_ENV] and tempfile.gettempdir().rsplit("/", 1)[-1].startswith("doctor-tests-")
    assert confinement.Confinement(tuple(os.environ[confinement.ROOTS_ENV].split(os.pathsep))).outside("/")


def _child(code: str, refusals: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, confinement.REFUSALS_ENV: refusals}  # the session's roots
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=REPO)


@pytest.mark.slow
def test_a_child_of_the_session_that_reads_outside_fails_and_is_logged(tmp_path):
    refusals = tmp_path / "refusals.log"  # the child's own log: the session's stays clean
    run = _child("import os; os.listdir('/')", str(refusals))
    assert run.returncode != 0 and "PermissionError: the test session reads nothing outside its clone" in run.stderr
    [line] = refusals.read_text().splitlines()
    assert line.split("\t")[1:3] == ["os.listdir", "/"]


@pytest.mark.slow
def test_the_doctors_question_for_a_file_outside_reads_as_absent_and_is_not_logged(tmp_path):
    refusals = tmp_path / "refusals.log"
    code = (
        "from torchcompile_doctor import source_files as s; "
        "print(s.read_source_file('/work/elsewhere/program.py'), s.has_dist_info('/'))"
    )
    run = _child(code, str(refusals))
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["None", "False"]
    assert not refusals.exists() or refusals.read_text() == ""
