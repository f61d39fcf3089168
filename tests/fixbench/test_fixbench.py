"""The team's fix benchmark (bench/fixbench, issue 33): every case is complete and cites its public source, the
held-out quarter is the seeded split, and the scorer's verdicts follow from the counts. One slow test runs the
scorer itself on one small case."""

from __future__ import annotations

import ast
import importlib.util
import json
import subprocess
import sys
from dataclasses import asdict, replace

import pytest
import yaml
from support.paths import REPO

BENCH = REPO / "bench"
CASES = BENCH / "fixbench"


def _load_scorer():
    # bench/ is a folder of scripts, not a package: the scorer is loaded from its file
    spec = importlib.util.spec_from_file_location("fixbench_scorer", BENCH / "fixbench.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


fixbench = _load_scorer()
ALL = fixbench.case_folders("all")


def _yaml(folder):
    return yaml.safe_load((folder / "case.yaml").read_text())


def _counts(**fields):
    base = {"graph_breaks": 0, "recompiles": 0, "graphs": 1, "limit_hits": 0}
    return fixbench.Counts(**{**base, **fields})


def _outcome(**fields):
    base = dict(
        doctor_exit=0,
        doctor_crashed=False,
        edited=True,
        before=_counts(graph_breaks=2, recompiles=1, graphs=3),
        after=_counts(),
        before_exit=0,
        after_exit=0,
        same_output=True,
    )
    return fixbench.Outcome(**{**base, **fields})


def test_at_least_48_cases_four_or_more_in_each_family():
    families = [_yaml(folder)["family"] for folder, _ in ALL]
    assert len(ALL) >= 48
    assert set(families) == set(fixbench.FAMILIES)
    assert all(families.count(f) >= 4 for f in fixbench.FAMILIES), sorted(families)


@pytest.mark.parametrize("folder", [folder for folder, _ in ALL], ids=lambda p: p.name)
def test_each_case_is_complete_and_cites_a_public_source(folder):
    for name in fixbench.CASE_FILES:
        assert (folder / name).is_file(), f"{folder.name} lacks {name}"
    data = _yaml(folder)
    assert set(fixbench.REQUIRED_KEYS) <= set(data), f"{folder.name}: {sorted(data)}"
    assert str(data["source"]).startswith("https://"), data["source"]
    assert data["family"] in fixbench.FAMILIES
    measured = data["measured"]
    assert str(measured["torch"]).startswith("2.")
    program, fixed = fixbench._counts(measured["program"]), fixbench._counts(measured["fixed"])
    # the case shows a problem torch counts, and the by-hand fix removes some of it
    assert program.problems > 0
    assert fixed.problems < program.problems or fixed.limit_hits < program.limit_hits, (program, fixed)
    for name in ("program.py", "fixed.py"):
        source = (folder / name).read_text()
        ast.parse(source)
        # torch.compile, or a module's own .compile() (regional compilation)
        assert "torch.compile" in source or ".compile(" in source, f"{folder.name}/{name} compiles nothing"
        assert "/work/" not in source and "/home/" not in source


def test_the_heldout_quarter_is_the_seeded_split_and_disjoint():
    seed, heldout = fixbench.read_split()
    added = set(fixbench.added_after_the_draw())
    drawn = [(folder, split) for folder, split in ALL if folder.name not in added]
    families = {folder.name: _yaml(folder)["family"] for folder, _ in drawn}
    assert heldout == fixbench.heldout_split(families, seed)
    in_heldout = {folder.name for folder, split in ALL if split == "heldout"}
    in_dev = {folder.name for folder, split in ALL if split == "dev"}
    assert in_heldout == set(heldout)
    assert not in_heldout & in_dev and added <= in_dev  # a case written after the draw is a dev case
    assert len(heldout) == round(len(drawn) / 4)
    # balanced: every family is held out, none more than twice
    held_families = [families[name] for name in heldout]
    assert set(held_families) == set(fixbench.FAMILIES)
    assert max(held_families.count(f) for f in fixbench.FAMILIES) <= 2


def test_the_heldout_readme_says_it_is_not_for_tuning():
    text = (CASES / "heldout" / "README.md").read_text().lower()
    assert "not" in text and "tune" in text


def test_the_split_depends_on_the_seed_alone():
    families = {f"case{i:02d}": f"family{i % 10}" for i in range(48)}
    first = fixbench.heldout_split(families, 7)
    assert first == fixbench.heldout_split(dict(reversed(list(families.items()))), 7)
    assert len(first) == 12
    assert len({families[n] for n in first}) == 10
    assert any(fixbench.heldout_split(families, seed) != first for seed in range(8, 12))


VERDICT_CASES = [
    (_outcome(), "fixed"),
    (_outcome(after=_counts(graph_breaks=1, graphs=2)), "improved"),
    (_outcome(after=_counts(graph_breaks=2, recompiles=1, graphs=3)), "no effect"),
    (_outcome(edited=False, after=None, after_exit=None), "no edit"),
    (_outcome(after=_counts(graph_breaks=3, recompiles=1, graphs=4)), "worse"),
    (_outcome(after=_counts(graphs=0)), "worse"),
    (_outcome(same_output=False), "broken"),
    (_outcome(after_exit=1), "broken"),
    (_outcome(doctor_exit=2), "error"),
    (_outcome(doctor_exit=3), "error"),
    (_outcome(doctor_exit=None), "error"),
    (_outcome(doctor_crashed=True, doctor_exit=1), "error"),
]


@pytest.mark.parametrize(
    ("outcome", "verdict"), VERDICT_CASES, ids=[f"{verdict}-{i}" for i, (_, verdict) in enumerate(VERDICT_CASES)]
)
def test_the_verdict_follows_from_the_counts(outcome, verdict):
    assert fixbench.classify(outcome, by_hand=_counts())[0] == verdict


def test_a_fix_is_judged_against_the_by_hand_counts_not_zero():
    # a sweep whose by-hand fix keeps its inherent recompiles (the limit raised) is fixed at those counts
    by_hand = _counts(recompiles=9, graphs=10)
    outcome = _outcome(before=_counts(recompiles=8, graphs=8, limit_hits=1), after=_counts(recompiles=9, graphs=10))
    assert fixbench.classify(outcome, by_hand)[0] == "fixed"
    still_limited = replace(outcome, after=_counts(recompiles=8, graphs=8, limit_hits=1))
    assert fixbench.classify(still_limited, by_hand)[0] == "no effect"


def test_printed_numbers_are_compared_to_a_tolerance():
    same = fixbench.measure_module.same_numbers
    assert same("lr tensor(0.0064)\n", "lr 0.0064\n")
    assert same("loss 1.00000", "loss 1.0000004")
    assert not same("loss 1.0", "loss 1.1")
    assert not same("a 1 b 2", "a 1")


def test_results_read_back_as_written_and_total_up():
    result = fixbench.CaseResult(
        name="x",
        family="side_effect",
        split="dev",
        verdict="improved",
        note="3 -> 1",
        before=_counts(graph_breaks=3),
        after=_counts(graph_breaks=1),
        by_hand=_counts(),
        doctor_exit=0,
        doctor_seconds=12.5,
        seconds=40.0,
        diff="--- a\n+++ b\n",
    )
    again = fixbench._result_from_json(json.loads(json.dumps(asdict(result))))
    assert again == result
    assert fixbench.totals([result, replace(result, verdict="fixed")])["improved"] == 1
    assert "improved 1" in fixbench.table([result])


@pytest.mark.slow
def test_the_scorer_runs_doctor_fix_on_one_case(tmp_path):
    name = "print_shape_in_forward"  # a dev case: the held-out ones are run only to report
    which = "heldout" if name in fixbench.read_split()[1] else "dev"
    done = subprocess.run(
        [sys.executable, str(BENCH / "fixbench.py"), "--set", which, "--case", name, "--json"]
        + ["--results", str(tmp_path), "--budget", "1"],  # the scorer's reading of a real run: no trial needed
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    (result,) = report["results"]
    assert result["verdict"] in fixbench.VERDICTS
    assert sum(report["totals"].values()) == 1
    recorded = fixbench.read_case(CASES / ("heldout" if which == "heldout" else "cases") / name, which)
    assert fixbench._counts(result["before"]) == recorded.recorded_before
    assert (tmp_path / f"{name}.json").is_file()


def test_the_results_section_replaces_itself_and_keeps_the_others(tmp_path):
    result = fixbench.CaseResult(
        name="x",
        family="side_effect",
        split="heldout",
        verdict="fixed",
        note="",
        before=_counts(graph_breaks=1, graphs=2),
        after=_counts(),
        by_hand=_counts(),
        doctor_exit=0,
        doctor_seconds=10.0,
        seconds=30.0,
        diff="",
    )
    page = tmp_path / "RESULTS.md"
    page.write_text("# Results\n\n## Before\n\ntext\n\n## After\n\nmore\n")
    for when in ("day 1", "day 2"):
        section = fixbench.markdown([result], when, "2.13.0+cpu", {"heldout": 1, "dev": 0})
        fixbench.write_section(section, page)
    text = page.read_text()
    assert text.count(fixbench.SECTION) == 1
    assert "day 2" in text and "day 1" not in text
    assert "## Before" in text and "## After" in text
    assert "fixed 1/1 (100%)" in text
    assert "| x | side_effect | heldout | fixed | 1/0/2 | 0/0/1 | 0/0/1 | 30 |  |" in text
