"""`doctor check`: the CI gate's exit codes, the baseline round trip, and config precedence/validation.

Every test runs the real CLI on real scripts (Dynamo with backend="eager" to keep it quick).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import SAMPLES, run_doctor

KNOWN_BREAK = """\
import torch


def step(x):
    print("step")  # the break the project lives with
    return x + 1


torch.compile(step, backend="eager")(torch.ones(2))
"""

NEW_BREAK = """

def other(x):
    x = x * 2
    print("other")  # a new break
    return x - 1


torch.compile(other, backend="eager")(torch.ones(2))
"""


def _check(*args: str, cwd: Path):
    return run_doctor("check", *args, "--format", "json", cwd=cwd)


# ---------------------------------------------------------------------------------------------- exit codes


@pytest.mark.slow
def test_clean_sample_passes():
    run = _check("clean_model.py", "--fullgraph", "--backend", "eager", cwd=SAMPLES)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.json["gate"] == {
        "passed": True,
        "criteria": ["--fullgraph"],
        "failures": [],
        "violations": [],
        "baseline": None,
    }


@pytest.mark.slow
def test_breaking_sample_fails_with_the_reason_first():
    run = _check("helper_two_callsites.py", "--fullgraph", "--backend", "eager", cwd=SAMPLES)
    assert run.returncode == 1, run.stderr[-2000:]
    first = run.json["findings"][0]
    assert first["code"] == "TCD113" and first["rank"] == 1
    assert run.json["gate"]["failures"] == [{"fingerprint": first["fingerprint"], "why": "a graph break (--fullgraph)"}]
    # what torch's own fullgraph=True would have said, without touching the user's code
    said = [n for n in run.json["notes"] if n.startswith("torch.compile(fullgraph=True) would raise Unsupported at ")]
    assert said and said[0].startswith("torch.compile(fullgraph=True) would raise Unsupported at helper_lib.py:10: ")


@pytest.mark.slow
def test_fullgraph_note_says_what_torch_raises(tmp_path):
    """The note is derived from the capture; torch's own fullgraph=True names the same break type."""
    script = tmp_path / "s.py"
    script.write_text(KNOWN_BREAK)
    ours = _check("s.py", "--fullgraph", cwd=tmp_path)
    [note] = [n for n in ours.json["notes"] if "fullgraph=True" in n]
    probe = KNOWN_BREAK.replace('backend="eager")', 'backend="eager", fullgraph=True)')
    probe = probe.replace("torch.compile(", "try:\n    torch.compile(", 1).replace(
        "(torch.ones(2))\n",
        "(torch.ones(2))\nexcept Exception as e:\n    print('RAISED', type(e).__name__, str(e).splitlines()[0])\n",
    )
    script.write_text(probe)
    raised = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    [line] = [line for line in raised.stdout.splitlines() if line.startswith("RAISED")]
    name, gb_type = line.split(" ", 2)[1:]
    assert note.startswith(f"torch.compile(fullgraph=True) would raise {name} at s.py:5: {gb_type} (")


@pytest.mark.slow
def test_thresholds_count_breaks_and_recompiles():
    within = _check("helper_two_callsites.py", "--max-graph-breaks", "1", "--backend", "eager", cwd=SAMPLES)
    assert within.returncode == 0, within.stderr[-2000:]
    over = _check("int_arg_recompile_limit.py", "--max-recompiles", "4", "--backend", "eager", cwd=SAMPLES)
    assert over.returncode == 1
    assert over.json["gate"]["violations"] == ["8 recompiles > --max-recompiles 4"]
    [failing] = over.json["gate"]["failures"]
    assert "8 of 8 recompiles (--max-recompiles 4)" in failing["why"]


@pytest.mark.slow
def test_fail_on_severity(tmp_path):
    (tmp_path / "s.py").write_text(KNOWN_BREAK)
    assert _check("s.py", "--fail-on", "high", cwd=tmp_path).returncode == 0  # one cold break is `low`
    low = _check("s.py", "--fail-on", "low", cwd=tmp_path)
    assert low.returncode == 1 and "severity low (--fail-on low)" in low.json["gate"]["failures"][0]["why"]
    default = _check("s.py", cwd=tmp_path)  # no criterion: every finding but info fails, like a linter
    assert default.returncode == 1 and default.json["gate"]["criteria"] == ["--fail-on low"]


@pytest.mark.slow
def test_bad_usage_and_failing_target(tmp_path):
    (tmp_path / "s.py").write_text(KNOWN_BREAK)
    bad = run_doctor("check", "s.py", "--fail-on", "severe", cwd=tmp_path)
    assert bad.returncode == 2 and bad.stderr.startswith("doctor: error: ") and "Traceback" not in bad.stderr
    assert "--fail-on" in bad.stderr and "critical, high, medium, low, info" in bad.stderr
    codes = run_doctor("check", "s.py", "--select", "E501", cwd=tmp_path)
    assert codes.returncode == 2 and "`--select` must be a list of rule codes" in codes.stderr
    nothing = run_doctor("check", cwd=tmp_path)
    assert nothing.returncode == 2 and "missing TARGET" in nothing.stderr
    (tmp_path / "crash.py").write_text(KNOWN_BREAK + "raise RuntimeError('boom')\n")
    crashed = _check("crash.py", "--fullgraph", cwd=tmp_path)
    assert crashed.returncode == 3  # the target failing wins over the gate
    assert crashed.json["target_status"] == "exception" and crashed.json["gate"]["passed"] is False


def test_missing_baseline_is_a_usage_error(tmp_path):
    (tmp_path / "s.py").write_text(KNOWN_BREAK)
    run = run_doctor("check", "s.py", "--baseline", "nope.json", cwd=tmp_path)
    assert run.returncode == 2 and "create it with --update-baseline" in run.stderr


# ---------------------------------------------------------------------------------------------- baseline


@pytest.mark.slow
def test_baseline_round_trip(tmp_path):
    script, baseline = tmp_path / "s.py", tmp_path / ".doctor-baseline.json"
    script.write_text(KNOWN_BREAK)

    written = _check("s.py", "--fullgraph", "--update-baseline", cwd=tmp_path)
    assert written.returncode == 0, written.stderr[-2000:]
    assert "1 added, 0 fixed and pruned" in written.stderr
    document = json.loads(baseline.read_text())
    [entry] = document["torch"]["2.13.0"]["s.py"]
    assert entry["code"] == "TCD101" and entry["source"] == 'print("step")  # the break the project lives with'

    known = _check("s.py", "--fullgraph", "--baseline", str(baseline), cwd=tmp_path)
    assert known.returncode == 0 and known.json["gate"]["baseline"]["known"] == 1

    script.write_text(KNOWN_BREAK + NEW_BREAK)
    new = _check("s.py", "--fullgraph", "--baseline", str(baseline), cwd=tmp_path)
    assert new.returncode == 1
    [failing] = new.json["gate"]["failures"]
    assert new.json["findings"][0]["fingerprint"] == failing["fingerprint"]
    assert new.json["findings"][0]["location"]["function"] == "other"

    script.write_text("# a comment\n\n\n" + KNOWN_BREAK)  # the known break moved down three lines
    moved = _check("s.py", "--fullgraph", "--baseline", str(baseline), cwd=tmp_path)
    assert moved.returncode == 0, moved.json["gate"]
    assert moved.json["findings"][0]["location"]["line"] == 8

    script.write_text(KNOWN_BREAK.replace('    print("step")  # the break the project lives with\n', ""))
    fixed = _check("s.py", "--fullgraph", "--baseline", str(baseline), cwd=tmp_path)
    assert fixed.returncode == 0 and fixed.json["gate"]["baseline"]["fixed"] == ["TCD101 s.py in step"]
    pruned = _check("s.py", "--fullgraph", "--update-baseline", cwd=tmp_path)
    assert pruned.returncode == 0 and "0 added, 1 fixed and pruned" in pruned.stderr
    assert json.loads(baseline.read_text())["torch"]["2.13.0"]["s.py"] == []


@pytest.mark.slow
def test_baseline_for_another_torch_is_reported_and_worse_counts_noted(tmp_path):
    script = tmp_path / "s.py"
    script.write_text(KNOWN_BREAK)
    assert _check("s.py", "--update-baseline", cwd=tmp_path).returncode == 0
    baseline = tmp_path / ".doctor-baseline.json"
    document = json.loads(baseline.read_text())
    document["torch"] = {"2.12.0": document["torch"]["2.13.0"]}
    document["torch"]["2.12.0"]["s.py"][0]["count"] = 0  # the break now happens more often than accepted
    baseline.write_text(json.dumps(document))
    run = _check("s.py", "--baseline", str(baseline), cwd=tmp_path)
    assert run.returncode == 0  # still matched by fingerprint: used, but not silently
    notes = "\n".join(run.json["notes"])
    assert "written for torch 2.12.0, this is torch 2.13.0" in notes
    assert "worse than the baseline: TCD101 s.py:5: 0 → 1" in notes


def test_malformed_baseline_is_a_usage_error(tmp_path):
    (tmp_path / "s.py").write_text(KNOWN_BREAK)
    (tmp_path / "b.json").write_text('{"version": 1, "torch": {"2.13.0": {"s.py": [{"code": 1}]}}}')
    run = run_doctor("check", "s.py", "--baseline", "b.json", cwd=tmp_path)
    assert run.returncode == 2 and "malformed entries" in run.stderr


# ---------------------------------------------------------------------------------------------- config


def _write(path: Path, text: str) -> None:
    path.write_text(textwrap.dedent(text))


@pytest.mark.slow
def test_pyproject_config_gives_targets_and_flags_override_it(tmp_path):
    (tmp_path / "s.py").write_text(KNOWN_BREAK)
    (tmp_path / "sub").mkdir()
    _write(
        tmp_path / "pyproject.toml",
        """
        [project]
        name = "demo"

        [tool.torchcompile-doctor]
        targets = ["s.py", {target = "s.py", args = ["--unused"]}]
        fullgraph = true
        format = "json"
        """,
    )
    both = run_doctor("check", cwd=tmp_path / "sub")  # found from the directory upward
    assert both.returncode == 1, both.stderr[-2000:]
    assert [r["target"] for r in json.loads(both.stdout)] == [str(tmp_path / "s.py")] * 2  # one report per target
    overridden = run_doctor("check", "s.py", "--no-fullgraph", "--fail-on", "critical", cwd=tmp_path)
    assert overridden.returncode == 0 and json.loads(overridden.stdout)["gate"]["criteria"] == ["--fail-on critical"]


@pytest.mark.slow
def test_pyproject_wins_over_yaml_and_explicit_config_is_used(tmp_path):
    (tmp_path / "s.py").write_text(KNOWN_BREAK)
    _write(tmp_path / "pyproject.toml", '[tool.torchcompile-doctor]\nfail-on = "critical"\n')
    _write(tmp_path / ".torchcompile-doctor.yaml", "fullgraph: true\n")
    assert _check("s.py", cwd=tmp_path).json["gate"]["criteria"] == ["--fail-on critical"]
    _write(tmp_path / "strict.yaml", "fullgraph: true\nignore: [TCD1]\n")
    ignored = _check("s.py", "--config", "strict.yaml", cwd=tmp_path)
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
    run = run_doctor("check", "s.py", cwd=tmp_path)
    assert run.returncode == 2, run.stdout
    assert run.stderr.startswith("doctor: error: ") and "Traceback" not in run.stderr
    assert ".torchcompile-doctor.yaml" in run.stderr and message in run.stderr
    assert not (tmp_path / "pwned").exists()  # safe_load: no object was constructed, nothing ran


@pytest.mark.slow
def test_check_under_torchrun_gates_rank_divergence():
    run = _check(
        "ddp_rank_divergence.py", "--nproc-per-node", "2", "--fail-on", "critical", "--timeout", "240", cwd=SAMPLES
    )
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
    from torchcompile_doctor.report import GateCriteria

    capture = Path(__file__).parent / "data" / "captures" / "int_arg_recompile_limit"
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
    assert list(summary.as_dict()) == ["path", "torch_release", "note", "fixed", "known", "new", "worse"]
    assert list(written.report.gate.baseline.as_dict())[4] == "updated"

    failing = pipeline.gate(run, pipeline.GateOptions(GateCriteria(max_recompiles=0)))
    assert pipeline.exit_code(failing) == 1 and failing.report.gate.violations
    with pytest.raises(Exception, match="does not exist; create it with --update-baseline"):
        pipeline.open_baseline(pipeline.GateOptions(baseline=tmp_path / "missing.json"))
