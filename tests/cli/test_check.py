"""`doctor check`: the CI gate's exit codes, the baseline round trip, and config precedence/validation.

Every test runs the real CLI. The end-to-end path (`doctor check TARGET`: the config's targets, and the live
gate against the gate of its kept capture) runs live; the gate's own logic is checked with `doctor check
--from-capture DIR`, in this process, on recorded captures: the samples' (tests/data/samples) and a small
project's history (tests/data/check/NAME/s.py, each recorded beside it as s.capture, see the README there).
"""

from __future__ import annotations

import contextlib
import dataclasses
import html
import json
import shutil
import textwrap
from pathlib import Path

import pytest
from support import fullgraph_probe
from support.captures import CAPTURES, SAMPLE_CAPTURES, recorded_root, reread
from support.doctor import DoctorRun, doctor_here, doctor_in_process
from support.nothing import NOTHING_KINDS, nothing_to_read
from support.paths import DATA, SAMPLES
from support.recording import move

from torchcompile_doctor.model.report import SEVERITIES

CHECK_PROJECTS = DATA / "check"
KNOWN_BREAK = (CHECK_PROJECTS / "known_break" / "s.py").read_text()


def project(name: str, tmp_path: Path) -> tuple[Path, Path]:
    """tests/data/check/NAME copied into tmp_path, its capture moved as if it had been recorded there (the gate
    writes the baseline beside it): (the folder, its capture)."""
    source = CHECK_PROJECTS / name
    folder = tmp_path / name
    folder.mkdir()
    shutil.copy(source / "s.py", folder / "s.py")
    move(source / "s.capture", folder / "s.capture", recorded_root(reread(source / "s.capture")), str(folder))
    return folder, folder / "s.capture"


# the samples' captures checked in (tests/data/captures/README.md), made with --backend eager


def _check(*args: str, cwd: Path):
    return doctor_here("check", *args, "--format", "json", cwd=cwd)


def _gate(capture: Path, *args: str, cwd: Path) -> DoctorRun:
    """`doctor check --from-capture CAPTURE ARGS --format json` in this process: the gate alone, nothing runs.
    The config is found from `cwd` upward, and the default baseline is written there."""
    return doctor_in_process("check", "--from-capture", str(capture), *args, "--format", "json", cwd=cwd)


# ---------------------------------------------------------------------------------------------- exit codes


def test_clean_sample_passes():
    run = _gate(SAMPLE_CAPTURES / "clean_model.capture", "--fullgraph", cwd=SAMPLES)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.json["gate"] == {
        "passed": True,
        "criteria": ["--fullgraph"],
        "failures": [],
        "violations": [],
        "baseline": None,
    }


def test_breaking_sample_fails_with_the_reason_first():
    run = _gate(SAMPLE_CAPTURES / "helper_two_callsites.capture", "--fullgraph", cwd=SAMPLES)
    assert run.returncode == 1, run.stderr[-2000:]
    first = run.json["findings"][0]
    assert first["code"] == "TCD124" and first["rank"] == 1  # time.perf_counter() in a helper
    assert run.json["gate"]["failures"] == [{"fingerprint": first["fingerprint"], "why": "a graph break (--fullgraph)"}]
    # what torch's own fullgraph=True would have said, without touching the user's code
    said = [n for n in run.json["notes"] if n.startswith("torch.compile(fullgraph=True) would raise Unsupported at ")]
    assert said and said[0].startswith("torch.compile(fullgraph=True) would raise Unsupported at helper_lib.py:10: ")


def _fullgraph_note(tmp_path: Path) -> str:
    folder, capture = project("known_break", tmp_path)
    ours = _gate(capture, "--fullgraph", cwd=folder)
    [note] = [n for n in ours.json["notes"] if "fullgraph=True" in n]
    return note


def _says(note: str, raised: str) -> bool:
    name, gb_type = raised.split(" ", 2)[1:]
    return note.startswith(f"torch.compile(fullgraph=True) would raise {name} at s.py:5: {gb_type} (")


def test_fullgraph_note_says_what_torch_raises(tmp_path):
    """The note is derived from the capture; torch's own fullgraph=True names the same break type (its answer on
    the pinned torch recorded: tests/support/fullgraph_probe.py)."""
    assert _says(_fullgraph_note(tmp_path), fullgraph_probe.recorded())


@pytest.mark.slow
@pytest.mark.torch_rerun
def test_fullgraph_note_says_what_this_torch_raises(tmp_path):
    probe = tmp_path / "probe"
    probe.mkdir()
    assert _says(_fullgraph_note(tmp_path), fullgraph_probe.raised(probe))


def test_thresholds_count_breaks_and_recompiles():
    within = _gate(CAPTURES / "helper_two_callsites", "--max-graph-breaks", "1", cwd=SAMPLES)
    assert within.returncode == 0, within.stderr[-2000:]
    over = _gate(CAPTURES / "int_arg_recompile_limit", "--max-recompiles", "4", cwd=SAMPLES)
    assert over.returncode == 1
    assert over.json["gate"]["violations"] == ["8 recompiles > --max-recompiles 4"]
    [failing] = over.json["gate"]["failures"]
    assert "8 of 8 recompiles (--max-recompiles 4)" in failing["why"]


def test_fail_on_severity(tmp_path):
    folder, capture = project("known_break", tmp_path)
    own = _gate(capture, "--fail-on", "critical", cwd=folder)
    [severity] = [f["severity"] for f in own.json["findings"]]  # one break, banded by its cost
    more_severe = SEVERITIES[SEVERITIES.index(severity) - 1]
    assert _gate(capture, "--fail-on", more_severe, cwd=folder).returncode == 0
    at_own = _gate(capture, "--fail-on", severity, cwd=folder)
    assert at_own.returncode == 1
    assert f"severity {severity} (--fail-on {severity})" in at_own.json["gate"]["failures"][0]["why"]
    default = _gate(capture, cwd=folder)  # no criterion: every finding but info fails, like a linter
    assert default.returncode == 1 and default.json["gate"]["criteria"] == ["--fail-on low"]


def test_bad_usage(tmp_path):
    (tmp_path / "s.py").write_text(KNOWN_BREAK)
    bad = doctor_here("check", "s.py", "--fail-on", "severe", cwd=tmp_path)
    assert bad.returncode == 2 and bad.stderr.startswith("doctor: error: ") and "Traceback" not in bad.stderr
    assert "--fail-on" in bad.stderr and "critical, high, medium, low, info" in bad.stderr
    codes = doctor_here("check", "s.py", "--select", "E501", cwd=tmp_path)
    assert codes.returncode == 2 and "`--select` must be a list of rule codes" in codes.stderr
    nothing = doctor_here("check", cwd=tmp_path)
    assert nothing.returncode == 2 and "missing TARGET" in nothing.stderr


def test_failing_target_exits_3_from_its_capture(tmp_path):
    """A capture whose log records that the target raised exits 3 (the target failing wins over the gate), as
    `doctor report` does; a bare TORCH_TRACE dir records nothing about how the target ended."""
    folder, capture = project("target_raises", tmp_path)
    crashed = _gate(capture, "--fullgraph", cwd=folder)
    assert crashed.returncode == 3
    assert crashed.json["target_status"] == "exception" and crashed.json["gate"]["passed"] is False
    refused = _gate(capture, "--update-baseline", "--baseline", str(tmp_path / "b.json"), cwd=folder)
    assert refused.returncode == 3 and "a target failed; the baseline was not updated" in refused.stderr
    assert not (tmp_path / "b.json").exists()
    bare = _gate(capture / "trace", "--fullgraph", cwd=folder)
    assert bare.returncode == 1 and bare.json["target_status"] == "unknown"


@pytest.mark.parametrize("name", ["target_raises", "stopped_run"])
def test_a_gate_over_a_run_that_failed_or_was_stopped_never_passes(tmp_path, name):
    """Whatever the criteria allow, a run that raised or was stopped (here at its --timeout) fails the gate and
    says why in its verdict (exit 3: the target's failure wins); never a bare "gate passed" over it."""
    folder, capture = project(name, tmp_path)
    lenient = _gate(capture, "--max-graph-breaks", "100", "--fail-on", "critical", "--ignore", "TCD405", cwd=folder)
    assert lenient.returncode == 3, lenient.stderr[-2000:]
    assert lenient.json["gate"]["passed"] is False and lenient.json["gate"]["failures"] == []
    (violation,) = lenient.json["gate"]["violations"]
    how = {"target_raises": "exception, exit code 1", "stopped_run": "stopped at its --timeout"}[name]
    assert violation == f"the run did not finish ({how}): what it did not reach was never checked"
    text = doctor_in_process("check", "--from-capture", str(capture), "--max-graph-breaks", "100", cwd=folder)
    assert text.returncode == 3 and "gate passed" not in text.stdout
    assert "gate FAILED   (--max-graph-breaks 100)\n  the run did not finish" in text.stdout
    markdown = doctor_in_process("check", "--from-capture", str(capture), "--format", "markdown", cwd=folder)
    assert "**Gate ❌ failed" in markdown.stdout and f"- the run did not finish ({how})" in markdown.stdout


def test_a_stopped_run_reads_as_stopped_never_as_failed(tmp_path):
    """The capture of a run the --timeout stopped (the parent recorded how) reads as stopped in every format: no
    "The target failed", no "fix the error", no `exit code None`."""
    folder, capture = project("stopped_run", tmp_path)
    run = _gate(capture, cwd=folder)
    assert run.json["target_status"] == "timeout" and run.json["target_exit_code"] is None
    stop = next(f for f in run.json["findings"] if f["code"] == "TCD405")
    assert stop["title"] == "The run was stopped at the --timeout of 15 s"
    assert stop["location"]["line"] == 13  # the line it hung on: time.sleep(600)
    assert stop["fix"]["summary"].startswith("let the run reach its end (a longer --timeout")
    for fmt in ("terminal", "markdown", "html", "github"):
        said = doctor_in_process("report", str(capture), "--format", fmt, cwd=folder).stdout
        assert "The run was stopped at the --timeout of 15 s" in html.unescape(said), fmt
        for wrong in ("The target failed", "fix the error", "exit code None", "`None`"):
            assert wrong not in said, (fmt, wrong)
    assert "target: stopped at its --timeout" in doctor_in_process("report", str(capture), cwd=folder).stdout


def test_missing_baseline_is_a_usage_error(tmp_path):
    (tmp_path / "s.py").write_text(KNOWN_BREAK)
    run = doctor_here("check", "s.py", "--baseline", "nope.json", cwd=tmp_path)
    assert run.returncode == 2 and "create it with --update-baseline" in run.stderr


# ---------------------------------------------------------------------------------------------- baseline


def test_baseline_round_trip(tmp_path):
    """The project's history as one directory per commit, each with its own s.py and its capture: the known
    break, a new break added, the known break moved down three lines, the known break fixed. The baseline is
    committed, so it moves from one to the next."""
    names = ("known_break", "new_break", "moved_down", "break_fixed")
    commits = [project(name, tmp_path) for name in names]
    (first, capture), *later = commits
    baseline = first / ".doctor-baseline.json"

    written = _gate(capture, "--fullgraph", "--update-baseline", cwd=first)
    assert written.returncode == 0, written.stderr[-2000:]
    assert "1 added, 0 fixed and pruned" in written.stderr
    document = json.loads(baseline.read_text())
    [entry] = document["torch"]["2.13.0"]["s.py"]
    assert entry["code"] == "TCD101" and entry["source"] == 'print("step")  # the break the project lives with'

    known = _gate(capture, "--fullgraph", "--baseline", str(baseline), cwd=first)
    assert known.returncode == 0 and known.json["gate"]["baseline"]["known"] == 1

    def at(commit: tuple[Path, Path]) -> tuple[Path, Path, Path]:
        """The commit's directory, its capture, and the baseline committed into it."""
        folder, kept = commit
        shutil.copyfile(baseline, folder / ".doctor-baseline.json")
        return folder, kept, folder / ".doctor-baseline.json"

    folder, kept, there = at(later[0])
    new = _gate(kept, "--fullgraph", "--baseline", str(there), cwd=folder)
    assert new.returncode == 1
    [failing] = new.json["gate"]["failures"]
    assert new.json["findings"][0]["fingerprint"] == failing["fingerprint"]
    assert new.json["findings"][0]["location"]["function"] == "other"

    folder, kept, there = at(later[1])
    moved = _gate(kept, "--fullgraph", "--baseline", str(there), cwd=folder)
    assert moved.returncode == 0, moved.json["gate"]
    assert moved.json["findings"][0]["location"]["line"] == 8

    folder, kept, there = at(later[2])
    fixed = _gate(kept, "--fullgraph", "--baseline", str(there), cwd=folder)
    assert fixed.returncode == 0 and fixed.json["gate"]["baseline"]["fixed"] == ["TCD101 s.py in step"]
    pruned = _gate(kept, "--fullgraph", "--update-baseline", cwd=folder)
    assert pruned.returncode == 0 and "0 added, 1 fixed and pruned" in pruned.stderr
    assert json.loads(there.read_text())["torch"]["2.13.0"]["s.py"] == []


def test_baseline_for_another_torch_is_reported_and_worse_counts_noted(tmp_path):
    folder, capture = project("known_break", tmp_path)
    baseline = folder / "another-torch.doctor-baseline.json"
    assert _gate(capture, "--update-baseline", "--baseline", str(baseline), cwd=folder).returncode == 0
    document = json.loads(baseline.read_text())
    document["torch"] = {"2.12.0": document["torch"]["2.13.0"]}
    document["torch"]["2.12.0"]["s.py"][0]["count"] = 0  # the break now happens more often than accepted
    baseline.write_text(json.dumps(document))
    run = _gate(capture, "--baseline", str(baseline), cwd=folder)
    assert run.returncode == 0  # still matched by fingerprint: used, but not silently
    notes = "\n".join(run.json["notes"])
    assert "written for torch 2.12.0, this is torch 2.13.0" in notes
    assert "worse than the baseline: TCD101 s.py:5: 0 → 1" in notes


def test_malformed_baseline_is_a_usage_error(tmp_path):
    (tmp_path / "s.py").write_text(KNOWN_BREAK)
    (tmp_path / "b.json").write_text('{"version": 1, "torch": {"2.13.0": {"s.py": [{"code": 1}]}}}')
    run = doctor_here("check", "s.py", "--baseline", "b.json", cwd=tmp_path)
    assert run.returncode == 2 and "malformed entries" in run.stderr


# ---------------------------------------------------------------------------------------------- config


def _write(path: Path, text: str) -> None:
    path.write_text(textwrap.dedent(text))


@pytest.mark.slow
def test_pyproject_config_gives_targets_and_flags_override_it(tmp_path):
    (tmp_path / "s.py").write_text(KNOWN_BREAK)
    # the second target imports no torch: it costs its run no second torch import, and says what it was given
    (tmp_path / "t.py").write_text("import sys\n\nprint('given', sys.argv[1:])\n")
    (tmp_path / "sub").mkdir()
    _write(
        tmp_path / "pyproject.toml",
        """
        [project]
        name = "demo"

        [tool.torchcompile-doctor]
        targets = ["s.py", {target = "t.py", args = ["--unused"]}]
        fullgraph = true
        format = "json"
        """,
    )
    both = doctor_here("check", cwd=tmp_path / "sub")  # found from the directory upward
    assert both.returncode == 1, both.stderr[-2000:]
    reports = json.loads(both.stdout)
    assert [r["target"] for r in reports] == [str(tmp_path / "s.py"), str(tmp_path / "t.py")]  # one per target
    assert [r["gate"]["passed"] for r in reports] == [False, True] and "given ['--unused']" in both.stderr
    # the config's gate keys and flags over them, on a capture of the same script; its `targets` are not run
    _, capture = project("known_break", tmp_path)
    gated = doctor_in_process("check", "--from-capture", str(capture), cwd=tmp_path / "sub")
    assert gated.returncode == 1 and json.loads(gated.stdout)["gate"]["criteria"] == ["--fullgraph"]
    overridden = doctor_in_process(
        "check", "--from-capture", str(capture), "--no-fullgraph", "--fail-on", "critical", cwd=tmp_path
    )
    assert overridden.returncode == 0 and json.loads(overridden.stdout)["gate"]["criteria"] == ["--fail-on critical"]


def test_pyproject_wins_over_yaml_and_explicit_config_is_used(tmp_path):
    _, capture = project("known_break", tmp_path)  # with --from-capture the config is found from the current directory
    _write(tmp_path / "pyproject.toml", '[tool.torchcompile-doctor]\nfail-on = "critical"\n')
    _write(tmp_path / ".torchcompile-doctor.yaml", "fullgraph: true\n")
    assert _gate(capture, cwd=tmp_path).json["gate"]["criteria"] == ["--fail-on critical"]
    _write(tmp_path / "strict.yaml", "fullgraph: true\nignore: [TCD1]\n")
    ignored = _gate(capture, "--config", "strict.yaml", cwd=tmp_path)
    assert ignored.returncode == 0 and ignored.json["findings"] == []
    assert "1 finding(s) left out by select/ignore." in ignored.json["notes"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("max_graph_breaks: 2\n", "unknown key `max_graph_breaks` (did you mean `max-graph-breaks`?)"),
        ("max-graph-breaks: two\n", "`max-graph-breaks` must be a whole number >= 0, not 'two'"),
        ("fullgraph: 1\n", "`fullgraph` must be true or false"),
        ("select: [E501]\n", "`select` must be a list of rule codes"),
        ("targets: [{script: s.py}]\n", "`targets[0].script` is not a target key"),
        ("- a list\n", "the top level must be a mapping"),
        ("fail-on: [\n", "is not valid YAML"),
        ("!!python/object/apply:os.system ['touch pwned']\n", "is not valid YAML"),
    ],
)
def test_bad_config_names_the_key_and_the_file(tmp_path, text, message):
    (tmp_path / "s.py").write_text(KNOWN_BREAK)
    (tmp_path / ".torchcompile-doctor.yaml").write_text(text)
    run = doctor_here("check", "s.py", cwd=tmp_path)
    assert run.returncode == 2, run.stdout
    assert run.stderr.startswith("doctor: error: ") and "Traceback" not in run.stderr
    assert ".torchcompile-doctor.yaml" in run.stderr and message in run.stderr
    assert not (tmp_path / "pwned").exists()  # safe_load: no object was constructed, nothing ran


@pytest.mark.slow
def test_check_gates_rank_divergence(ddp_run):
    """The gate on a torchrun job's capture (the session's DDP run, tests/conftest.py)."""
    run = _gate(ddp_run.artifacts, "--fail-on", "critical", cwd=SAMPLES)
    assert run.returncode == 1, run.stderr[-2000:]
    failed = {failure["fingerprint"] for failure in run.json["gate"]["failures"]}
    failing = {f["code"]: f["ranks"] for f in run.json["findings"] if f["fingerprint"] in failed}
    assert {"TCD501", "TCD502", "TCD504"} <= set(failing)
    assert failing["TCD501"] == [0] and failing["TCD502"] == [1]
    assert [row["rank"] for row in run.json["ranks"]] == [0, 1]


def test_pipeline_gate_round_trip_in_process(tmp_path):
    """The pipeline the CLI calls, in-process on a checked-in capture: --update-baseline writes the findings,
    the next gate knows them, and the baseline's summary serialises as the JSON schema v1 dict did."""
    from torchcompile_doctor import pipeline
    from torchcompile_doctor.model.gate import GateCriteria
    from torchcompile_doctor.model.json import to_json

    capture = CAPTURES / "int_arg_recompile_limit"
    run = pipeline.reread(capture)
    assert pipeline.exit_code(run) == 0  # the recorded target finished
    baseline = tmp_path / ".doctor-baseline.json"
    options = pipeline.GateOptions(GateCriteria(fail_on="low"), baseline=baseline, update_baseline=True)

    written = pipeline.gate(run, options, pipeline.open_baseline(options))
    assert written.baseline_update is not None and written.baseline_update.added == len(run.report.findings) > 0
    assert pipeline.exit_code(written) == 0 and baseline.is_file()

    checked = pipeline.gate(run, pipeline.GateOptions(baseline=baseline), pipeline.open_baseline(options))
    summary = checked.report.gate.baseline
    assert (summary.known, summary.new, summary.worse, summary.fixed) == (len(run.report.findings), 0, (), ())
    assert list(to_json(summary)) == ["path", "torch_release", "note", "fixed", "known", "new", "worse"]
    assert list(to_json(written.report.gate.baseline))[4] == "updated"

    failing = pipeline.gate(run, pipeline.GateOptions(GateCriteria(max_recompiles=0)))
    assert pipeline.exit_code(failing) == 1 and failing.report.gate.violations
    with pytest.raises(Exception, match="does not exist; create it with --update-baseline"):
        pipeline.open_baseline(pipeline.GateOptions(baseline=tmp_path / "missing.json"))


# ---------------------------------------------------------------------------------------------- --from-capture


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["s.py"], "give a TARGET to run or --from-capture DIR to gate a kept capture, not both"),
        (["-m", "pkg.train"], "give a TARGET to run or --from-capture DIR to gate a kept capture, not both"),
        (["--timeout", "60"], "--timeout applies to running a target; --from-capture DIR runs nothing"),
        (["--backend", "eager"], "--backend applies to running a target; --from-capture DIR runs nothing"),
        (["--nproc-per-node", "2"], "--nproc-per-node applies to running a target; --from-capture DIR runs nothing"),
    ],
)
def test_from_capture_with_a_target_or_a_run_flag_is_a_usage_error(tmp_path, args, message):
    (tmp_path / "s.py").write_text(KNOWN_BREAK)
    capture = CAPTURES / "int_arg_recompile_limit"
    run = doctor_in_process("check", "--from-capture", str(capture), *args, cwd=tmp_path)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr == f"doctor: error: {message}\n"


def test_from_capture_leaves_the_configs_targets_and_run_keys_alone(tmp_path):
    """The config serves live checks too: its `targets`, `backend` and `timeout` are not run, not an error."""
    _write(
        tmp_path / ".torchcompile-doctor.yaml",
        "targets: [missing.py]\nbackend: eager\ntimeout: 60\nmax-recompiles: 4\n",
    )
    run = _gate(CAPTURES / "int_arg_recompile_limit", cwd=tmp_path)
    assert run.returncode == 1 and run.stderr == "", run.stderr
    assert run.json["gate"]["violations"] == ["8 recompiles > --max-recompiles 4"]


def test_from_capture_of_nothing_is_a_usage_error(tmp_path):
    run = doctor_here("check", "--from-capture", "out", "--format", "sarif", cwd=tmp_path)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr == "doctor: error: --from-capture out: no such file or directory\n"


@pytest.mark.parametrize("kind", NOTHING_KINDS)
def test_from_capture_of_what_holds_no_record_is_never_a_pass(tmp_path, kind):
    """A typo in a CI artifact path, or an artifact that is not a capture, fails the gate in one line (exit 2),
    however lenient the criteria; a recorded capture beside it (the control) is gated as before."""
    given = nothing_to_read(tmp_path, kind)
    for criteria in (["--fullgraph"], ["--max-graph-breaks", "1000"]):
        run = doctor_in_process("check", "--from-capture", given.name, *criteria, cwd=tmp_path)
        assert (run.returncode, run.stdout) == (2, ""), (kind, run.stdout[-2000:])
        assert run.stderr == f"doctor: error: nothing to read in {given.name}: no trace, no capture, no log records\n"
    control = _gate(SAMPLE_CAPTURES / "clean_model.capture", "--fullgraph", cwd=tmp_path)
    assert control.returncode == 0 and control.json["gate"]["passed"], control.stderr[-2000:]


def test_from_capture_gates_a_jobs_text_log_as_report_reads_it(tmp_path):
    """A real job log is something to read: gated on what it holds (here torch's TF32 warning), not refused."""
    job = DATA / "gpu" / "tf32_matmul" / "truth.log.gz"
    strict = _gate(job, "--fail-on", "medium", cwd=tmp_path)
    assert strict.returncode == 1, strict.stderr[-2000:]
    assert [f["code"] for f in strict.json["findings"]] == ["TCD418"]
    assert strict.json["summary"]["graphs"] is None  # a log does not hold them
    lenient = _gate(job, "--fail-on", "critical", cwd=tmp_path)
    assert lenient.returncode == 0 and lenient.json["gate"]["passed"], lenient.stderr[-2000:]


def test_from_capture_gates_a_checked_in_capture_in_every_format(tmp_path):
    """The CI use: one capture, gated once per format; no torch run, the same verdict each time."""
    capture = CAPTURES / "int_arg_recompile_limit"
    for fmt in ("json", "sarif", "github", "junit", "markdown", "terminal"):
        run = doctor_in_process(
            "check", "--from-capture", str(capture), "--max-recompiles", "4", "--format", fmt, cwd=tmp_path
        )
        assert run.returncode == 1, (fmt, run.stderr)
        assert "8 recompiles > --max-recompiles 4" in html.unescape(run.stdout), fmt  # junit writes &gt;


@pytest.mark.slow
def test_from_capture_says_what_the_live_check_of_the_same_run_said(tmp_path):
    """`doctor check TARGET --fullgraph` as the CLI runs it (settings -> run_all -> gate -> render), its capture
    kept, then `doctor check --from-capture` on that capture: the same output in every format, byte for byte,
    and the same exit code."""
    from torchcompile_doctor import cli, pipeline
    from torchcompile_doctor.settings import CheckFlags, TargetArgs, check_settings

    kept = tmp_path / "kept"
    with contextlib.chdir(SAMPLES):
        settings = check_settings(TargetArgs("helper_two_callsites.py"), CheckFlags(fullgraph=True))
        capture = dataclasses.replace(settings.run.capture, backend="eager")
        options = dataclasses.replace(settings.run, capture=capture, artifacts=kept)
        live = pipeline.gate(pipeline.run_all(settings.targets, options), settings.gate)
        said = {fmt: cli._render(live.reports, fmt, None) for fmt in ("json", "sarif", "github", "terminal")}
    assert pipeline.exit_code(live) == 1
    for fmt, text in said.items():
        offline = doctor_in_process("check", "--from-capture", str(kept), "--fullgraph", "--format", fmt, cwd=SAMPLES)
        assert offline.returncode == 1, (fmt, offline.stderr)
        assert offline.stdout == text, fmt
