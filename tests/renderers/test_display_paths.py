"""What users read names no machine's absolute path (#34): every format of several kept captures, re-read here as
`doctor report DIR` re-reads them on a machine that did not record them, shows neither the recording machine's
folders nor this one's (the clone, the venv, the temp folder). The JSON keeps a machine path only in the fields
programs need (README, "JSON report"), and those are left out of the check."""

from __future__ import annotations

import json
import re
import sys
import tempfile

import pytest
from support.captures import CAPTURES, FALLBACK_CAPTURES, SAMPLE_CAPTURES, reread
from support.paths import REPO, RULES

from torchcompile_doctor.model.findings import RunFigures
from torchcompile_doctor.model.fix import FixReport
from torchcompile_doctor.model.paths import ELLIPSIS, display_path, display_roots, display_text, torch_path
from torchcompile_doctor.model.report import Report, RunEnvironment
from torchcompile_doctor.renderers import FORMATS, RenderOptions, render
from torchcompile_doctor.renderers.fix_report import render_terminal

KEPT = [
    *sorted(p for p in CAPTURES.iterdir() if p.is_dir()),
    SAMPLE_CAPTURES / "gpt2_finetune.capture",
    SAMPLE_CAPTURES / "fullgraph_failure.capture",
    FALLBACK_CAPTURES / "mbart_eval",
    RULES / "TCD118" / "backward_inside_function.capture",  # torch's explanation names a file of torch's
    RULES / "TCD123" / "progress_bar.capture",
]
# the JSON's fields that hold the path as the run read it, for programs (an editor, `doctor fix`): README says so
MACHINE_PATH_FIELDS = frozenset({"file", "target", "torch_text"})
# an absolute path under a folder machines keep homes, checkouts and temp files in
_MACHINE_PREFIX = re.compile(r"(?<![\w.~<>-])/(?:work|home|tmp|Users|root|private)/")


def _this_machine() -> list[str]:
    """The absolute folders of this machine a report could leak: the clone, the venv, the temp folder."""
    return [str(REPO), sys.prefix, tempfile.gettempdir()]


def _without_machine_fields(value: object) -> object:
    if isinstance(value, dict):
        return {k: _without_machine_fields(v) for k, v in value.items() if k not in MACHINE_PATH_FIELDS}
    if isinstance(value, list):
        return [_without_machine_fields(item) for item in value]
    return value


def _shown(report: Report, fmt: str, base_dir: str | None) -> str:
    text = render(report, fmt, RenderOptions(color=False, width=110, base_dir=base_dir))
    if fmt == "json":
        return json.dumps(_without_machine_fields(json.loads(text)), ensure_ascii=False)
    return text


@pytest.mark.parametrize("base_dir", [None, str(REPO)], ids=["no-cwd", "cwd-is-the-clone"])
@pytest.mark.parametrize("capture", KEPT, ids=lambda p: p.name)
def test_no_format_shows_a_machine_path(capture, base_dir):
    report = reread(capture)
    recorded = report.environment.program_dir
    assert recorded.startswith("/")  # the capture did record a machine's folder: the check below means something
    for fmt in FORMATS:
        text = _shown(report, fmt, base_dir)
        leaked = sorted({m.group(0) for m in _MACHINE_PREFIX.finditer(text)})
        assert not leaked, f"{capture.name} {fmt}: {leaked}"
        for folder in (recorded, *report.environment.library_roots, *_this_machine()):
            assert folder not in text, f"{capture.name} {fmt} shows {folder}"


def test_the_registry_note_names_torch_not_the_machine():
    notes = [note for capture in KEPT for note in reread(capture).notes if "graph-break registry" in note]
    assert notes
    for note in notes:
        assert "site-packages" not in note and not _MACHINE_PREFIX.search(note)
    installed = [note for note in notes if "installed torch's" in note]
    assert all("(<torch>/_dynamo/graph_break_registry.json)" in note for note in installed)


def test_the_header_names_the_script_relative_to_the_project():
    report = reread(CAPTURES / "repeated_blocks")
    recorded = report.environment.program_dir
    for fmt in ("terminal", "markdown"):
        head = render(report, fmt, RenderOptions(width=200)).splitlines()[0]
        assert head.endswith("repeated_blocks.py") and "/" not in head.split()[-1], head
    # run from the folder above the program's (the project), the script is shown from there
    project, _, folder = recorded.rpartition("/")
    assert report.display_target(project) == f"{folder}/repeated_blocks.py"


ENVIRONMENT = RunEnvironment(
    program_dir="/home/dev/proj", library_roots=("/opt/py/lib/python3.11", "/opt/py/lib/python3.11/site-packages")
)
ROOTS = display_roots(ENVIRONMENT.program_dir, ENVIRONMENT.library_roots)


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        ("/home/dev/proj/train.py", "train.py"),
        ("/home/dev/proj/pkg/model.py:forward", "pkg/model.py:forward"),
        ("/opt/py/lib/python3.11/site-packages/transformers/x.py", "transformers/x.py"),  # the longest root wins
        ("/opt/py/lib/python3.11/logging/__init__.py", "logging/__init__.py"),
        ("/other/venv/lib/python3.12/site-packages/torch/nn/m.py", "torch/nn/m.py"),  # another machine's library
        ("/srv/elsewhere/util.py", f"{ELLIPSIS}/util.py"),
        ("/home/dev/project2/x.py", f"{ELLIPSIS}/x.py"),  # a sibling whose name starts as the root's: not under it
        ("<frozen runpy>", "<frozen runpy>"),
        ("relative/train.py", "relative/train.py"),
        ("-m pkg.train", "-m pkg.train"),
    ],
)
def test_display_path(path, shown):
    assert display_path(path, ROOTS) == shown


def test_the_current_directory_comes_first_only_for_ci():
    people = display_roots(ENVIRONMENT.program_dir, ENVIRONMENT.library_roots, "/home/dev")
    ci = display_roots(ENVIRONMENT.program_dir, ENVIRONMENT.library_roots, "/home/dev", checkout_first=True)
    assert display_path("/home/dev/proj/train.py", people) == "train.py"
    assert display_path("/home/dev/proj/train.py", ci) == "proj/train.py"


def test_torch_files_and_text():
    assert torch_path("/x/venv/lib/python3.11/site-packages/torch/_dynamo/graph_break_registry.json") == (
        "<torch>/_dynamo/graph_break_registry.json"
    )
    assert torch_path("/home/me/torch/notes.json") == f"{ELLIPSIS}/notes.json"  # a folder named torch, not torch's
    text = 'File "/home/dev/proj/train.py", line 3 and /srv/a/b.py:12; see https://x.org/a/b and a/b and 3 / 4'
    assert display_text(text, ROOTS) == (
        f'File "train.py", line 3 and {ELLIPSIS}/b.py:12; see https://x.org/a/b and a/b and 3 / 4'
    )


def test_doctor_fix_names_the_script_from_its_project():
    project = "/home/dev/proj"
    fix = FixReport(
        schema_version=1,
        target=f"{project}/sub/train.py",
        project=project,
        before=RunFigures(1, 0, 2, 0, 0, 0.5),
        before_succeeded=True,
        trials=(),
        patch=None,
        notes=(f"the program read {project}/data/x.csv and /srv/other/y.csv",),
    )
    text = render_terminal(fix)
    assert text.startswith("doctor fix sub/train.py\n")
    assert f"note: the program read data/x.csv and {ELLIPSIS}/y.csv" in text
    assert not _MACHINE_PREFIX.search(text) and "/srv/" not in text


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        ("/home/dev/lib/model.py", "../lib/model.py"),  # beside the program's folder, in the same project
        ("/home/dev/proj/../x.py", "../x.py"),
        ("/home/other/x.py", f"{ELLIPSIS}/x.py"),  # shares only /home: its path would spell out the machine
        ("/work/shared/data/x.py", f"{ELLIPSIS}/x.py"),
    ],
)
def test_a_file_near_the_program_is_shown_from_its_folder(path, shown):
    assert display_path(path, ROOTS, near="/home/dev/proj") == shown
