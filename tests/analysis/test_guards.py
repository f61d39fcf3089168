"""`doctor guards`: guard trees per compiled frame from TORCH_TRACE, their kinds and sources, what
changed between cache entries, and the measured per-call cost; guard findings in `doctor explain`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.captures import SAMPLE_CAPTURES, capture_dirs, reread, trace_files
from support.doctor import doctor_here, doctor_in_process
from support.paths import REPO, SAMPLES

from torchcompile_doctor.analysis import AnalysisContext
from torchcompile_doctor.analysis.guard_frames import carried_words, diff_entries, guard_frames, pins
from torchcompile_doctor.analysis.index import AnalysisIndex
from torchcompile_doctor.events.guard_terms import guard_term
from torchcompile_doctor.events.load import load_artifacts
from torchcompile_doctor.events.model import EventLog, Guard
from torchcompile_doctor.events.parsers.guards_tree import parse_tree
from torchcompile_doctor.model.json import to_json
from torchcompile_doctor.renderers import render

TREE = """
TREE_GUARD_MANAGER:
+- RootGuardManager
| +- LAMBDA_GUARD: torch._functorch.aot_autograd.utils.top_saved_tensors_hooks ids == None  # _dynamo/output_graph.py:1135 in init_ambient_guards
| +- GLOBAL_STATE: ___check_global_state() against {"grad_mode":false}
| +- GuardManager: source=L['x'], accessed_by=FrameLocalsGuardAccessor(key='x', framelocals_idx=1), type=<class 'torch.Tensor'>, tag_safe=(False, False)
| | +- TENSOR_MATCH: check_tensor(L['x'], Tensor, DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU), torch.float32, device=None, requires_grad=False, size=[4, 8], stride=[1, 4])  # return x + self.c  # mp/g/model.py:11 in forward
| | | | +- EQUALS_MATCH: L['self']._modules['blocks']._modules['3'].c == 3             # return x + self.c  # mp/g/model.py:11 in forward (HINT: torch.compile considers integer attributes)
"""  # noqa: E501 - torch's own lines


def test_tree_parser_reads_leaves_kinds_depths_and_sources():
    guards = parse_tree(TREE)
    assert [g.kind for g in guards] == ["LAMBDA_GUARD", "GLOBAL_STATE", "TENSOR_MATCH", "EQUALS_MATCH"]
    assert [g.depth for g in guards] == [1, 1, 2, 4]
    assert guards[3].source == "return x + self.c" and guards[3].where == "mp/g/model.py:11"
    assert guards[3].expression == "L['self']._modules['blocks']._modules['3'].c == 3"


def test_guards_in_plain_words():
    guards = parse_tree(TREE)
    assert pins(guards[2]) == "x: float32 [4, 8] stride [1, 4], requires_grad=False"
    assert pins(guards[3]) == "self.blocks[3].c == 3"
    assert guard_term("G['CONFIG']['scale'] == 2").readable == "CONFIG['scale'] == 2"


def test_entry_diff_names_what_changed_and_ignores_renumbering():
    before = (
        Guard("EQUALS_MATCH", "L['step'] == 1", 2),
        Guard("ID_MATCH", "___check_obj_id(__builtins_dict___0['len'], 140250244812448)", 1),
    )
    after = (
        Guard("EQUALS_MATCH", "L['step'] == 2", 2),
        Guard("ID_MATCH", "___check_obj_id(__builtins_dict___2['len'], 140250244999999)", 1),
    )
    assert diff_entries(before, after) == ("step: 1 → 2",)


@pytest.mark.slow
def test_guard_heavy_frame_counts_kinds_sources_and_cost():
    run = doctor_here("guards", "guard_heavy_stack.py", "--format", "json", cwd=SAMPLES)
    assert run.returncode == 0, run.stderr[-2000:]
    report = run.json
    [frame] = report["guards"]
    assert (frame["function"], frame["line"]) == ("Stack.forward", 24)
    [entry] = frame["entries"]
    assert sum(entry["by_kind"].values()) == entry["tree_guards"] >= 400
    assert entry["by_kind"]["EQUALS_MATCH"] == 200  # 100 offsets + 100 module-key-order checks
    assert entry["guard_count"] > entry["tree_guards"]  # torch also counts checks folded into the tree
    assert entry["by_source_line"]["guard_heavy_stack.py:16: return x + self.offset"] >= 100
    assert entry["pins"][:3] == [
        "x: float32 [4] contiguous, requires_grad=False",
        "self.blocks[0].offset == 0",
        "self.blocks[1].offset == 1",
    ]
    overhead = frame["overhead"]
    assert overhead["error"] is None and overhead["calls"] > 0
    assert overhead["compiled_us"] > 0 and overhead["skip_guards_us"] > 0 and overhead["eager_us"] > 0
    [heavy] = [f for f in report["findings"] if f["code"] == "TCD212"]
    assert heavy["kind"] == "guard_cost" and heavy["location"]["line"] == 24


@pytest.mark.slow
def test_recompile_diff_names_the_changed_guard(module_counter_guards, tmp_path):
    [frame] = json.loads(render(reread(SAMPLE_CAPTURES / "dtype_recompile.capture"), "json"))["guards"]
    assert [e["changed"] for e in frame["entries"]] == [[], ["signal: float32 [4, 128] → float64 [4, 128]"]]
    # the terminal view of the module_counter guards capture, re-read from its dump (the same guards, see
    # test_dump_round_trip_reads_the_same_guards_without_running)
    terminal = doctor_in_process("guards", "--dump", str(module_counter_guards.artifacts), cwd=tmp_path)
    assert terminal.returncode == 0, terminal.stderr
    assert "changed from the previous entry: self.count: 0 → 1" in terminal.stdout
    assert "per call: not measured" in terminal.stdout  # its counter recompiles when the call is repeated


def test_guard_findings_appear_in_explain():
    report = json.loads(render(reread(SAMPLE_CAPTURES / "guard_heavy_stack.capture"), "json"))
    codes = [f["code"] for f in report["findings"]]
    assert codes == ["TCD212", "TCD215"]
    steady = report["findings"][1]
    assert steady["impact"]["steady_module_values"] == 100  # every block's `offset`, none ever changed
    assert "self.blocks[3].offset == 3" in steady["evidence"]["pins"]
    assert "skip_guard_on_all_nn_modules_unsafe" in steady["fix"]["summary"]
    assert report["guards"][0]["steady_module_values"] == 100
    assert report["guards"][0]["overhead"] is None  # timing only runs under `doctor guards`


def test_guards_needs_a_target_or_a_dump(tmp_path):
    run = doctor_here("guards", cwd=tmp_path)
    assert run.returncode == 2 and "give a TARGET to run, or --dump DIR" in run.stderr
    missing = doctor_here("guards", "--dump", str(tmp_path / "nope"), cwd=tmp_path)
    assert missing.returncode == 2 and "is not a directory" in missing.stderr


@pytest.fixture(scope="session")
def module_counter_guards(shared_run):
    """`doctor guards module_counter.py` once per session, its depyf dump kept (`.artifacts`)."""
    return shared_run("guards", "module_counter.py", "--format", "json", keep_artifacts="--dump")


@pytest.mark.slow
def test_dump_round_trip_reads_the_same_guards_without_running(module_counter_guards, tmp_path):
    live, dump = module_counter_guards, module_counter_guards.artifacts
    assert live.returncode == 0, live.stderr[-2000:]
    assert list(dump.glob("__transformed_code_*_for_forward.py")) and (dump / "doctor_capture").is_dir()
    offline = doctor_in_process("guards", "--dump", str(dump), "--format", "json", cwd=tmp_path)
    assert offline.returncode == 0, offline.stderr
    assert offline.json["guards"] == live.json["guards"]  # kinds, counts, diffs and the measured cost
    # self.count changed between entries (it caused the recompiles): it is no steady value; self.training is
    assert live.json["guards"][0]["steady_module_values"] <= 1
    assert "TCD215" not in {f["code"] for f in live.json["findings"]}


def test_plain_depyf_dump_is_read_with_a_warning():
    run = doctor_in_process("guards", "--dump", str(REPO / "tests/data/depyf_dumps/module_counter"), "--format", "json")
    assert run.returncode == 0, run.stderr
    report = run.json
    [frame] = report["guards"]
    assert frame["function"] == "forward" and len(frame["entries"]) == 4
    assert [e["changed"][:1] for e in frame["entries"][1:]] == [
        ["self.count: 0 → 1"],
        ["self.count: 1 → 2"],
        ["self.count: 2 → 3"],
    ]
    assert any("only root-level guards" in note for note in report["notes"])


def test_measured_guard_share_becomes_a_finding(tmp_path):
    from torchcompile_doctor.analysis import AnalysisContext, analyze
    from torchcompile_doctor.events.model import CompilationMetrics, CompileId, EventLog, GuardOverhead, GuardTree

    script = tmp_path / "model.py"
    script.write_text("import torch\n\ndef step(x):\n    return x + 1\n")
    log = EventLog()
    metrics = CompilationMetrics(CompileId(0, 0), "step", str(script), 3, 0, 12, 40.0, 1, 0.1, None, None, None, None)
    log.metrics.append(metrics)
    log.guard_trees.append(GuardTree(CompileId(0, 0), parse_tree(TREE)))
    log.guard_overheads.append(GuardOverhead(str(script), 3, "step", 500, 10.0, 6.0, 8.0))
    report = analyze(log, AnalysisContext(target=str(script), root=str(tmp_path)))
    [finding] = [f for f in report.findings if f.code == "TCD214"]
    assert finding.title == "Guards take 40% of each `step` call"
    assert to_json(finding.impact) == {"guard_us_per_call": 4.0, "guard_share": 0.4}
    assert "compiled 10.0 µs" in finding.why and "eager 8.0 µs" in finding.why
    assert report.guards[0].overhead.skip_guards_us == 6.0
    # below the share threshold: no finding
    log.guard_overheads[0] = GuardOverhead(str(script), 3, "step", 500, 10.0, 9.5, 8.0)
    report = analyze(log, AnalysisContext(target=str(script), root=str(tmp_path)))
    assert not [f for f in report.findings if f.code == "TCD214"]
    # 40% again, but the rounds lay 5 µs apart (a loaded machine): within the noise, no finding
    noisy = GuardOverhead(str(script), 3, "step", 500, 10.0, 6.0, 8.0, None, 5.0, 4.0, 7)
    log.guard_overheads[0] = noisy
    report = analyze(log, AnalysisContext(target=str(script), root=str(tmp_path)))
    assert not [f for f in report.findings if f.code == "TCD214"]
    overhead = report.guards[0].overhead
    assert overhead is not None and overhead.within_noise and overhead.noise_us == 4.5
    assert to_json(overhead)["compiled_spread_us"] == 5.0 and to_json(overhead)["rounds"] == 7


def test_guard_timings_within_their_noise_are_said_to_be_so_not_a_contradiction(tmp_path):
    """Two runs of one sample gave 88.6 µs and 44,036 µs; another had guards skipped slower than with guards.
    With the rounds' spread kept, the terminal says the two differ within the noise and claims no guard cost."""
    from torchcompile_doctor.model.findings import GuardOverheadFigures
    from torchcompile_doctor.renderers.terminal import _overhead_line

    slower_skipped = GuardOverheadFigures(500, 88.6, 91.0, 80.0, None, 6.0, 5.0, 7)
    line = _overhead_line(slower_skipped)
    assert line == (
        "    per call: compiled 88.6 µs ± 3.0 · guards skipped 91.0 µs ± 2.5 · eager 80.0 µs · guards skipped and "
        "with guards differ within the noise of 7 rounds: no guard cost measured"
    )
    measured = GuardOverheadFigures(500, 10.0, 6.0, 8.0, None, 0.4, 0.2, 7)
    assert not measured.within_noise and _overhead_line(measured).endswith("guards ≈ 40% of the call")
    # a capture recorded before spreads were kept: the median alone, as before
    assert _overhead_line(GuardOverheadFigures(500, 10.0, 6.0, 8.0)).endswith(
        "· eager 8.0 µs · guards ≈ 40% of the call"
    )


def test_each_entry_says_what_diff_entries_says_of_its_tree_and_the_one_before():
    """guard_frames works out each distinct guard once for the whole report (a frame's entries share their Guard
    objects): what it says changed is what the plain per-pair diff says, on every real capture with recompiles
    (found here, each capture loaded once, not when the suite is collected)."""
    with_recompiles = []
    for capture in capture_dirs() + trace_files():
        log = load_artifacts(capture)
        if len(log.guard_trees) > 1:
            _entries_say_what_diff_entries_says(capture, log)
            with_recompiles.append(capture)
    assert len(with_recompiles) >= 150, with_recompiles  # 182 recorded captures when this was written


def _entries_say_what_diff_entries_says(capture: Path, log: EventLog) -> None:
    index = AnalysisIndex.build(log, AnalysisContext(target=str(capture), root=str(capture), offline=True))
    trees: dict[str, list[tuple[Guard, ...]]] = {}
    ids = {str(tree.compile_id): tree.compile_id for tree in log.guard_trees}
    for tree in log.guard_trees:
        trees.setdefault(str(tree.compile_id), []).append(tree.guards)
    compared = 0
    where = capture.relative_to(REPO)
    for frame in guard_frames(index):
        for before, entry in zip(frame.entries, frame.entries[1:], strict=False):
            if len(trees[before.compile_id]) == 1 and len(trees[entry.compile_id]) == 1:  # the entry's own tree
                file, _, co_name = index.frame_key(ids[entry.compile_id])
                carried = carried_words(index, file, co_name)
                said = diff_entries(trees[before.compile_id][0], trees[entry.compile_id][0], carried)
                assert entry.changed == said, where
                compared += 1
    assert compared or all(len(frame.entries) < 2 for frame in guard_frames(index)), where


def test_entry_diff_words_the_first_eight_guards_only_one_entry_has():
    before = tuple(Guard("EQUALS_MATCH", f"L['a{n}'] == {n}", 1) for n in range(6))
    after = tuple(Guard("EQUALS_MATCH", f"L['b{n}'] == {n}", 1) for n in range(6))
    changed = diff_entries(before, after)
    assert changed == tuple(f"+ EQUALS_MATCH: b{n} == {n}" for n in range(6)) + (
        "- EQUALS_MATCH: a0 == 0",
        "- EQUALS_MATCH: a1 == 1",
    )
