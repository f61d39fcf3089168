"""Every supported torch release, read offline: small programs of common patterns (tests/data/torch_versions/
programs, each saying in its docstring what it does), each recorded on each release from 2.11 to 2.15 with that
release's own `TORCH_LOGS=graph_breaks,recompiles` stderr beside it as the truth (tests/data/torch_versions/README.md
says how). Each release's capture is re-read as `doctor report` re-reads it, under the torch installed here: every
break torch logged is read at the user's line under a curated rule, every recompile under its real cause, and no
guard internal (`___`, `L['`, `G['`) reaches what the user reads.

What the doctor reads wrong is listed in MISREAD, one strict xfail per case saying what should be read instead (none
since #27 read every release's wording; a new release's recordings may add some). A case that starts to pass fails
here until its entry is removed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from support.captures import reread
from support.paths import DATA
from support.torch_logs import TorchLog, TorchRecompile, read_torch_log

from torchcompile_doctor.analysis.graph_break_registry import registry_for_capture
from torchcompile_doctor.model.findings import BreakEvidence
from torchcompile_doctor.model.report import Finding
from torchcompile_doctor.torch_releases import SUPPORTED_RELEASES, release_of

TORCH_VERSIONS = DATA / "torch_versions"
PROGRAMS = sorted(p.stem for p in (TORCH_VERSIONS / "programs").glob("*.py"))
GENERIC_RULES = ("TCD199", "TCD299")  # a break or a recompile no curated rule explains
BREAK_KINDS = ("graph_break", "frame_skipped")
GUARD_INTERNALS = ("___", "L['", "G['")
# torch's guard-failure text -> the cause the doctor should name (a reason class); the first pattern that matches
REAL_CAUSES = (
    (re.compile(r"^___stack\d+ == -?\d+\.\d"), "float_specialization"),  # a float carried across a break
    (re.compile(r"^___stack\d+ == -?\d+$"), "int_specialization"),  # an int carried across a break
    (re.compile(r"^expected type of '[^']+' to be"), "type_change"),  # a tensor, then another type
    (re.compile(r"^(not )?G\['\w+'\]$|^len\(G\['\w+'\]\) == \d+$"), "dict_or_list_length"),  # a global list's size
    (re.compile(r"size mismatch at index \d+"), "shape_or_rank"),
    # a guarded object freed, and its cache entry dropped with it: no reason class names this yet
    (re.compile(r"^Cache line invalidated because .+ got deallocated$"), "guarded_object_freed"),
)


# (test, release, program) -> what the doctor misreads, and how it should read (none left: a new recording may add some)
MISREAD: dict[tuple[str, str, str], str] = {}


def cases(test: str, programs: list[str] = PROGRAMS) -> list:
    """(release, program) of every recording, each a strict xfail where MISREAD lists it for `test`."""
    params = []
    for release in SUPPORTED_RELEASES:
        for program in programs:
            why = MISREAD.get((test, release, program))
            marks = [pytest.mark.xfail(strict=True, reason=why)] if why else []
            params.append(pytest.param(release, program, id=f"{release}-{program}", marks=marks))
    return params


def capture(release: str, program: str) -> Path:
    return TORCH_VERSIONS / release / f"{program}.capture"


def truth(release: str, program: str) -> TorchLog:
    return read_torch_log(TORCH_VERSIONS / release / f"{program}.torch_logs.txt")


def real_cause(recompile: TorchRecompile) -> str:
    """The cause of a recompile, from the guard torch says failed for the newest cache entry."""
    guard = recompile.guard_failures[0]
    cause = next((cause for pattern, cause in REAL_CAUSES if pattern.search(guard)), None)
    assert cause is not None, f"no REAL_CAUSES pattern for torch's guard failure {guard!r}: add what it means"
    return cause


def user_text(finding: Finding) -> list[str]:
    """What the user reads of a finding in words (its code before/after is the user's own code)."""
    return [finding.title, finding.why, finding.fix.summary if finding.fix else "", *finding.changes]


@pytest.mark.parametrize("program", PROGRAMS)
@pytest.mark.parametrize("release", SUPPORTED_RELEASES)
def test_each_program_is_recorded_on_each_release_with_its_torch_log(release, program):
    made = json.loads((capture(release, program) / "recording.json").read_text(encoding="utf-8"))
    assert release_of(made["versions"]["torch"]) == release
    assert made["torch_logs_command"].startswith("cd tests/data/torch_versions/programs && TORCH_LOGS=")
    log = truth(release, program)
    assert log.breaks or log.recompiles, "the program should make torch break or recompile"
    assert release_of(reread(capture(release, program)).torch_version) == release


@pytest.mark.parametrize(("release", "program"), cases("breaks"))
def test_every_break_torch_logged_is_read_at_the_users_line_under_a_curated_rule(release, program):
    report = reread(capture(release, program))
    breaks = [f for f in report.findings if f.kind in BREAK_KINDS]
    for logged in truth(release, program).breaks:
        at_line = [
            f for f in breaks if f.location and Path(f.location.file).name == logged.file_name
            and f.location.line == logged.line and f.gb_id == logged.gb_id
        ]  # fmt: skip
        assert at_line, f"{logged} not read at its line: {[(f.code, f.location, f.gb_id) for f in breaks]}"
        assert all(f.code not in GENERIC_RULES for f in at_line), [(f.code, f.title) for f in at_line]


@pytest.mark.parametrize(("release", "program"), cases("recompiles"))
def test_every_recompile_torch_logged_is_read_under_its_real_cause(release, program):
    report = reread(capture(release, program))
    logged = truth(release, program).recompiles
    recompiles = [f for f in report.findings if f.kind == "recompile"]
    assert report.summary.recompiles == len(logged), [(r.function, r.guard_failures) for r in logged]
    assert {f.reason_class for f in recompiles} == {real_cause(r) for r in logged}, [
        (f.code, f.reason_class, f.title) for f in recompiles
    ]
    assert all(f.code not in GENERIC_RULES for f in recompiles), [(f.code, f.title) for f in recompiles]


@pytest.mark.parametrize(("release", "program"), cases("internals"))
def test_no_guard_internals_reach_the_user(release, program):
    report = reread(capture(release, program))
    shown = [
        (f.code, text) for f in report.findings for text in user_text(f) if any(i in text for i in GUARD_INTERNALS)
    ]
    assert not shown


@pytest.mark.parametrize(("release", "program"), cases("module", ["compiled_module"]))
def test_a_compiled_module_is_named_by_its_class_at_the_users_line(release, program):
    """torch compiles a torch.nn container through its own wrapper (`wrap_inline.<locals>.inner`, in
    torch/_dynamo/external_utils.py): the finding names the module's class, stands at the user's line and names
    the inputs as the user's call passed them."""
    report = reread(capture(release, program))
    (recompile,) = [f for f in report.findings if f.kind == "recompile"]
    assert "Sequential" in recompile.title and "wrap_inline" not in recompile.title, recompile.title
    assert recompile.location and Path(recompile.location.file).name == f"{program}.py", recompile.location
    # the wrapper's `*args` read as what the user's call passed: `model(torch.randn(batch, 8))`
    assert not any("args[" in text for text in user_text(recompile)), user_text(recompile)


@pytest.mark.parametrize("release", SUPPORTED_RELEASES)
def test_a_capture_is_read_with_its_own_releases_registry(release):
    report = reread(capture(release, "user_logging"))
    (note,) = [n for n in report.notes if n.startswith("graph-break registry: ")]
    installed_here = registry_for_capture(report.torch_version).source.startswith("installed torch")
    assert note.startswith(
        "graph-break registry: the installed torch's" if installed_here else f"graph-break registry: torch {release}'s"
    )


def test_a_gb_id_new_in_a_release_resolves_through_that_releases_registry():
    """2.15 breaks on `time.time()` under GB9193, which 2.11-2.14 do not have: a re-read of 2.15's capture finds it
    in 2.15's registry (torch's hints there class it), whichever torch is installed where it is read."""
    report = reread(capture("2.15", "time_in_step"))
    (found,) = [f for f in report.findings if f.kind == "graph_break"]
    assert (found.gb_id, found.gb_type) == ("GB9193", "Call to a time function")
    assert isinstance(found.evidence, BreakEvidence) and found.evidence.hint_class == "supportable"
    assert registry_for_capture("2.14.1").get("GB9193") is None
    entry = registry_for_capture("2.15.0").get("GB9193")
    assert entry is not None and entry.gb_type == "Call to a time function"
