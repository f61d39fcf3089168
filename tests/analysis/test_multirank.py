"""Several ranks: rank files grouped, reports merged, divergence found — offline on checked-in rank logs
(tests/data/traces/multirank/, see its README) and live under torchrun (`explain --nproc-per-node 2`)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.captures import merged_multirank, normalise, snapshot_context, trace_root
from support.doctor import doctor_here, doctor_in_process, run_doctor
from support.paths import DATA, REPO, SAMPLES, TESTS
from support.snapshots import assert_matches_snapshot

from torchcompile_doctor.analysis import AnalysisContext, analyze, report_of_ranks
from torchcompile_doctor.events.load import load_artifacts, load_ranks
from torchcompile_doctor.events.model import RunOutcome, TargetExit
from torchcompile_doctor.model.report import rank_list
from torchcompile_doctor.renderers import RenderOptions, render

MULTIRANK = DATA / "traces" / "multirank"
CAPTURE = DATA / "captures" / "helper_two_callsites"
GOLDEN = TESTS / "golden"
DDP_SAMPLE = "ddp_rank_divergence.py"


def _context(**fields) -> AnalysisContext:
    return snapshot_context(MULTIRANK, "tests/data/traces/multirank", trace_root(MULTIRANK), **fields)


def _merged():
    return merged_multirank()


def _by_code(report) -> dict:
    found: dict = {}
    for finding in report.findings:
        found.setdefault(finding.code, []).append(finding)
    return found


# --- loading: one EventLog per rank -------------------------------------------------------------


def test_rank_files_are_grouped_by_rank():
    loaded = load_ranks(MULTIRANK)
    assert loaded.ranks == [0, 1] and loaded.unranked == []
    rank0, rank1 = loaded.logs[0], loaded.logs[1]
    assert (len(rank0.graph_breaks), len(rank0.recompiles)) == (1, 0)
    assert (len(rank1.graph_breaks), len(rank1.recompiles)) == (0, 1)
    assert rank0.health.problems == 0 and rank0.health.unknown_kinds == 0
    assert rank1.health.truncated and rank1.health.bad_json == 1  # the cut line
    assert {s.child for s in rank0.ddp_splits} == {None, "submod_0", "submod_1"}
    assert len({s.compile_id for s in rank1.ddp_splits}) == 2


def test_rank_comes_from_the_envelopes_when_the_file_name_has_none(tmp_path):
    for i, file in enumerate(sorted(MULTIRANK.glob("*.log"))):
        shutil.copy(file, tmp_path / f"trace_{i}.log")
    loaded = load_ranks(tmp_path)
    assert loaded.ranks == [0, 1]
    assert len(loaded.logs[0].graph_breaks) == 1 and len(loaded.logs[1].recompiles) == 1


def test_rank_comes_from_the_side_channel_pid_when_the_trace_names_none(tmp_path):
    """A rank that opened its trace before init_process_group and logged nothing after: only the pid ties it."""
    source = next(MULTIRANK.glob("*rank_0_*.log"))
    text = source.read_text(encoding="utf-8").replace('"rank": 0, ', "")
    (tmp_path / "dedicated_log_torch_trace_abc.log").write_text(text, encoding="utf-8")
    pid = int(re.match(r"^\S+ \S+ +(\d+) ", text).group(1))
    bootstrap = {"event": "bootstrap", "torch_version": "2.13.0", "target": "x.py", "pid": pid}
    (tmp_path / "doctor_events_rank_3.jsonl").write_text(json.dumps(bootstrap) + "\n", encoding="utf-8")
    loaded = load_ranks(tmp_path)
    assert loaded.ranks == [3] and len(loaded.logs[3].graph_breaks) == 1 and loaded.logs[3].bootstrap


def test_unranked_files_beside_rank_files_are_left_out_and_named(tmp_path):
    for file in MULTIRANK.glob("*.log"):
        shutil.copy(file, tmp_path / file.name)
    shutil.copy(DATA / "traces" / "graph_break_print.log", tmp_path / "stray.log")
    loaded = load_ranks(tmp_path)
    assert loaded.ranks == [0, 1] and [p.name for p in loaded.unranked] == ["stray.log"]
    report = report_of_ranks(loaded.logs, _context(), unranked=[p.name for p in loaded.unranked])
    assert any("stray.log" in note and "left out" in note for note in report.notes)


def test_a_single_process_capture_loads_as_before():
    loaded = load_ranks(CAPTURE)
    assert loaded.ranks == [0] and loaded.logs[0] == load_artifacts(CAPTURE)
    context = snapshot_context(CAPTURE, "t", trace_root(CAPTURE))
    assert report_of_ranks(loaded.logs, context) == analyze(load_artifacts(CAPTURE), context)


# --- the merged report ---------------------------------------------------------------------------


def test_merged_report_dedupes_findings_and_names_their_ranks():
    report = _merged()
    codes = _by_code(report)
    assert {code: [f.ranks for f in found] for code, found in codes.items()} == {
        "TCD501": [(0,)],  # the print breaks on rank 0 only
        "TCD502": [(1,)],  # the short last batch recompiles rank 1 only
        "TCD504": [(0, 1)],
        "TCD505": [(1,)],
        "TCD101": [(0,)],
        "TCD301": [(1,)],
        "TCD506": [(0, 1)],  # DDP split on both ranks: one finding
    }
    divergence = [f for f in report.findings if f.kind == "rank_divergence"]
    assert {f.code for f in divergence} == {"TCD501", "TCD502", "TCD504", "TCD505"}
    assert all(f.severity == "critical" for f in divergence)
    assert [f.rank for f in report.findings] == list(range(1, len(report.findings) + 1))
    assert report.findings[0].kind == "rank_divergence"

    gb = codes["TCD501"][0]
    assert (gb.location.line, gb.gb_id) == (33, "GB0059")
    assert (gb.evidence.present_on, gb.evidence.missing_on) == ([0], [1])
    assert gb.evidence.finding == codes["TCD101"][0].fingerprint
    recompile = codes["TCD502"][0]
    assert recompile.location.function == "TinyNet.forward" and "x.shape[0]: 8 → 5" in recompile.changes
    assert "0/0 1/0" in codes["TCD504"][0].why and "0/0 0/1" in codes["TCD504"][0].why
    assert "middle of a record" in codes["TCD505"][0].title


def test_ddp_splits_are_not_graph_breaks():
    report = _merged()
    split = _by_code(report)["TCD506"][0]
    assert (split.kind, split.severity, split.location.function) == ("ddp_split", "info", "TinyNet.forward")
    assert split.impact.subgraphs == 2 and split.evidence.per_rank["1"].count == 2
    assert report.summary.graph_breaks == 1  # the print only
    assert [f.code for f in report.findings if f.kind == "graph_break"] == ["TCD101"]


def test_rank_table_summary_and_log_health():
    report = _merged()
    assert [row.rank for row in report.rank_table] == [0, 1]
    rank0, rank1 = report.rank_table
    assert (rank0.graphs, rank0.graph_breaks, rank0.recompiles, rank0.ddp_splits) == (2, 1, 0, 1)
    assert (rank1.graphs, rank1.graph_breaks, rank1.recompiles, rank1.ddp_splits) == (2, 0, 1, 1)
    assert (rank0.log, rank1.log) == ("complete", "ends early")
    s = report.summary
    assert (s.graphs, s.graph_breaks, s.recompiles) == (2, 1, 1)  # worst rank's figures, breaks unique
    assert s.compile_time_s == pytest.approx(max(row.compile_time_s for row in report.rank_table), abs=1e-3)
    assert report.log_health.truncated and report.log_health.bad_json == 1
    health = [n for n in report.notes if n.startswith("log health:")]
    assert len(health) == 1 and "rank 1: the file ends mid-record (truncated), 1 bad JSON envelope(s)" in health[0]


def test_every_finding_carries_its_ranks_in_json():
    data = json.loads(render(_merged(), "json"))
    assert all(finding["ranks"] for finding in data["findings"])
    assert len(data["ranks"]) == 2 and data["ranks"][1]["log"] == "ends early"
    single = json.loads(render(analyze(load_artifacts(CAPTURE), _context()), "json"))
    assert {tuple(f["ranks"]) for f in single["findings"]} == {(0,)} and single["ranks"] == []


def test_a_rank_without_an_exit_record_ends_early_and_the_launcher_failure_is_reported():
    logs = load_ranks(MULTIRANK).logs
    logs[1].health.truncated = False
    logs[0].target_exits.append(TargetExit(status="ok", exit_code=0))
    report = report_of_ranks(logs, _context(outcome=RunOutcome(returncode=1)))
    early = _by_code(report)["TCD505"]
    assert [f.ranks for f in early] == [(1,)] and "no exit record" in early[0].title
    assert (report.target_status, report.target_exit_code) == ("exit", 1)
    failed = [f for f in report.findings if f.kind == "target_error"]
    assert len(failed) == 1 and failed[0].ranks == (1,) and "rank 1 left no exit record" in failed[0].title
    assert [row.target_status for row in report.rank_table] == ["ok", "unknown"]


def test_a_rank_that_stopped_early_on_the_same_path_is_not_a_graph_divergence():
    logs = load_ranks(MULTIRANK).logs
    twin = load_ranks(MULTIRANK).logs[0]
    # rank "2": the same run as rank 0, cut before its first compile ended
    twin.metrics, twin.output_graphs, twin.graph_breaks, twin.ddp_splits = [], [], [], []
    twin.dynamo_starts = twin.dynamo_starts[:1]
    twin.health.truncated = True
    report = report_of_ranks({0: logs[0], 2: twin}, _context())
    codes = _by_code(report)
    assert "TCD504" not in codes and [f.ranks for f in codes["TCD505"]] == [(2,)]
    assert "rank 2 ended early" in codes["TCD501"][0].why


def test_rank_list():
    assert [rank_list(r) for r in ([0], [1, 0], [0, 1, 2, 3, 5], [7, 2, 3])] == ["0", "0-1", "0-3, 5", "2-3, 7"]


EXTENSIONS = {"terminal": "txt", "json": "json", "markdown": "md"}


@pytest.mark.parametrize("fmt", sorted(EXTENSIONS))
def test_golden_multirank(fmt):
    text = normalise(render(_merged(), fmt, RenderOptions(color=False, width=110)), trace_root(MULTIRANK))
    assert_matches_snapshot(text, GOLDEN / f"multirank.{EXTENSIONS[fmt]}")


# --- `doctor report` on a directory of rank logs -------------------------------------------------


def test_report_cli_merges_rank_logs():
    run = doctor_in_process("report", str(MULTIRANK), "--format", "json", "--root", str(SAMPLES))
    assert run.returncode == 0, run.stderr
    data = run.json
    assert {f["code"] for f in data["findings"] if f["kind"] == "rank_divergence"} == {
        "TCD501",
        "TCD502",
        "TCD504",
        "TCD505",
    }
    assert any(note.startswith("graph-break registry: ") for note in data["notes"])


def test_report_strict_fails_on_the_truncated_rank():
    run = doctor_in_process("report", str(MULTIRANK), "--strict")
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.strip().splitlines() == [
        "doctor: error: --strict: the logs have problems: rank 1: the file ends mid-record (truncated), "
        "1 bad JSON envelope(s) (drop --strict to read past them)"
    ]
    assert doctor_in_process("report", str(CAPTURE), "--strict", "--format", "json").returncode == 0


@pytest.mark.slow
def test_rank_report_needs_no_torch(tmp_path):
    """`doctor report` on rank logs in a Python where importing torch fails: the bundled registry, and it says so."""
    (tmp_path / "torch.py").write_text("raise ImportError('torch is blocked in this test')\n")
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{REPO}"}
    out = subprocess.run(
        [sys.executable, "-m", "torchcompile_doctor", "report", str(MULTIRANK), "--format", "json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert any(f["kind"] == "rank_divergence" for f in data["findings"])
    gb = next(f for f in data["findings"] if f["code"] == "TCD101")
    assert gb["gb_id"] == "GB0059" and gb["torch_says"]
    assert (
        "graph-break registry: torch 2.13's, bundled with torchcompile-doctor (the capture's torch is 2.13.0+cpu; "
        "torch is not installed here)" in data["notes"]
    )


def test_nproc_per_node_does_not_combine_with_try_fixes():
    run = doctor_here("explain", DDP_SAMPLE, "--nproc-per-node", "2", "--try-fixes", cwd=SAMPLES)
    assert run.returncode == 2 and "--try-fixes" in run.stderr and "Traceback" not in run.stderr


# --- live: under torchrun, and live against offline ----------------------------------------------

_EXIT_FIELDS = ("target_exit_code", "target_status", "notes")


def _apart_from_exit(report: dict) -> dict:
    """A JSON report without what only a live run knows: how the target ended (and the notes that say so)."""
    data = {key: value for key, value in report.items() if key not in _EXIT_FIELDS}
    data["findings"] = [f for f in report["findings"] if f["kind"] != "target_error"]
    data["ranks"] = [{k: v for k, v in row.items() if k != "target_status"} for row in report["ranks"]]
    return data


@pytest.mark.slow
def test_live_ddp_sample_reports_the_divergence(ddp_run):
    run, artifacts = ddp_run, ddp_run.artifacts
    assert run.returncode == 0, run.stderr[-3000:]
    report = run.json
    assert (report["target_status"], report["target_exit_code"]) == ("ok", 0)
    divergence = {f["code"]: f for f in report["findings"] if f["kind"] == "rank_divergence"}
    assert set(divergence) == {"TCD501", "TCD502", "TCD504"}, [f["code"] for f in report["findings"]]
    assert divergence["TCD501"]["ranks"] == [0] and divergence["TCD501"]["location"]["line"] == 33
    assert divergence["TCD502"]["ranks"] == [1] and divergence["TCD502"]["changes"] == ["x.shape[0]: 8 → 5"]
    assert [row["target_status"] for row in report["ranks"]] == ["ok", "ok"]
    assert [f["code"] for f in report["findings"] if f["kind"] == "ddp_split"] == ["TCD506"]
    assert [f["code"] for f in report["findings"] if f["kind"] == "graph_break"] == ["TCD101"]
    assert all(f["ranks"] for f in report["findings"])
    assert sorted(p.name for p in artifacts.glob("doctor_events*.jsonl")) == [
        "doctor_events_rank_0.jsonl",
        "doctor_events_rank_1.jsonl",
    ]
    assert len(list((artifacts / "trace").glob("dedicated_log_torch_trace_rank_*.log"))) == 2


@pytest.mark.slow
def test_live_and_offline_agree_on_two_ranks(ddp_run, tmp_path):
    run, artifacts = ddp_run, ddp_run.artifacts
    offline = doctor_in_process("report", str(artifacts), "--format", "json", cwd=tmp_path)
    assert offline.returncode == 0, offline.stderr
    assert _apart_from_exit(offline.json) == _apart_from_exit(run.json)


# Rank 1 never ends, and rank 0 waits for it, as at a barrier it never reaches. What is stopped is processes, not
# torch's: the ranks import no torch, so the test pays for torchrun's start alone (the process group of the live
# DDP sample above is torch's); 8 s leaves torchrun, which imports torch, the time to start both ranks under load.
HANGING = """
import os
import time

if os.environ["RANK"] == "1":
    time.sleep(600)
while True:
    time.sleep(0.1)
"""


@pytest.mark.slow
def test_timeout_stops_every_rank(tmp_path):
    script = tmp_path / "hangs_on_rank_1.py"
    script.write_text(HANGING)
    run = run_doctor("explain", str(script), "--nproc-per-node", "2", "--timeout", "8", "--format", "json")
    assert run.returncode == 3, run.stderr[-3000:]
    assert run.json["target_status"] == "timeout"
    assert [row["target_status"] for row in run.json["ranks"]] == ["timeout", "timeout"]  # both ranks had started
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _processes_running(str(script)):
        time.sleep(0.5)
    assert not _processes_running(str(script)), "a rank outlived --timeout"


def _processes_running(needle: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and entry.name != str(os.getpid()):
            try:
                if needle in (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace"):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found
