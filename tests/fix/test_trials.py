"""The trial engine on trial copies of a real project on disk. In-process (a fake `measure` reads the copy's text
and says what its run gave): the plain run repeated for its noise, the same edit measured once, the most promising
change first, a line per finished trial, the same patch whatever the timings within the noise, a reason for each
helpful change left out. Slow (the program run for real in each copy, without torch: what a trial's figures are is
the pipeline's business, tested live in test_doctor_fix.py): a change that prints other results is refused, unless
a plain run again prints other results too."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from torchcompile_doctor.fix.candidates import Candidate, FileEdit
from torchcompile_doctor.fix.trials import AGAIN, PLAIN_AGAIN, measure_candidates
from torchcompile_doctor.model.findings import RunFigures
from torchcompile_doctor.model.trial import LeftOut, Outcome, RunResult
from torchcompile_doctor.patches.edits import AfterTorchImport

FIXED = "torch.fixed = True"


def _project(tmp_path: Path, program: str) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "train.py").write_text(program)
    (root / "torch.py").write_text("fixed = False\n")  # a stand-in module the change sets a flag on
    return root


def _measure(copy: Path, seconds: float) -> RunResult:
    """Run the copy's program; a run whose code holds the change has no graph break."""
    run = subprocess.run([sys.executable, "train.py"], cwd=copy, capture_output=True, text=True, timeout=seconds)
    breaks = 0 if FIXED in (copy / "train.py").read_text() else 1
    return RunResult(RunFigures(breaks, 0, 1, 0, 0, 0.1), 0, run.returncode == 0, run.returncode, run.stdout, "", 0.1)


def _candidate(root: Path) -> Candidate:
    return Candidate(
        "the flag", ("TCD104",), ("a break",), (FileEdit(root / "train.py", AfterTorchImport(FIXED)),), False
    )


def _measured(root: Path):
    before = _measure(root, 30)
    originals = {root / "train.py": (root / "train.py").read_text()}
    return measure_candidates([_candidate(root)], root, originals, before, _measure, jobs=1, budget_s=60)


@pytest.mark.slow
def test_a_change_that_prints_other_results_is_refused(tmp_path):
    root = _project(tmp_path, "import torch\nprint('loss', 0.7 if torch.fixed else 0.5)\n")
    measured = _measured(root)
    assert measured.output_varies is None  # a plain run again printed the same
    (trial,) = measured.trials
    assert trial.verdict.outcome == Outcome.OUTPUT_CHANGED and "loss 0.5" in (trial.verdict.detail or "")


@pytest.mark.slow
def test_a_program_that_prints_other_results_on_every_run_is_judged_by_its_figures(tmp_path):
    # 16 random bytes: two runs never print lines the verdict reads as the same (a 4-byte int printed as a number
    # came within its 1e-3 tolerance of the last run's now and then, and the test flaked)
    root = _project(tmp_path, "import os\nimport torch\nprint('seed', os.urandom(16).hex())\n")
    measured = _measured(root)
    assert measured.output_varies is not None and measured.output_varies.startswith("printed line 1 was `seed")
    (trial,) = measured.trials
    assert trial.helps


def _measure_problems(copy: Path, seconds: float) -> RunResult:
    """The copy's program run; each flag it sets removes the problems named for it (by finding key)."""
    run = subprocess.run([sys.executable, "train.py"], cwd=copy, capture_output=True, text=True, timeout=seconds)
    code = (copy / "train.py").read_text()
    problems = {"TCD104 train.py f": 1, "TCD202 train.py g": 2}
    if "torch.switch = True" in code or "torch.rewrite = True" in code:
        del problems["TCD104 train.py f"]
    if "torch.keyword = True" in code:
        del problems["TCD202 train.py g"]
    figures = RunFigures(
        1 if "TCD104 train.py f" in problems else 0, problems.get("TCD202 train.py g", 0), 1, 0, 0, 0.1
    )
    return RunResult(figures, 0, run.returncode == 0, run.returncode, run.stdout, "", 0.1, problems=problems)


@pytest.mark.slow
def test_two_changes_that_remove_the_same_problem_are_alternatives_not_a_combination(tmp_path):
    root = _project(tmp_path, "import torch\nprint('ok')\n")
    originals = {root / "train.py": (root / "train.py").read_text()}

    def flag(name: str) -> Candidate:
        edit = FileEdit(root / "train.py", AfterTorchImport(f"torch.{name} = True"))
        return Candidate(name, ("TCD104",), (f"{name}'s finding",), (edit,), False)

    before = _measure_problems(root, 30)
    chosen = [flag("switch"), flag("rewrite"), flag("keyword")]
    measured = measure_candidates(chosen, root, originals, before, _measure_problems, jobs=1, budget_s=60)
    assert all(t.helps for t in measured.trials)
    # the switch and the rewrite remove the same break: the combination holds the keyword (it leaves the fewest
    # problems, so it goes first) and the first of the two equals (by name)
    assert measured.combined is not None
    assert [c.title for c in measured.combined.candidates] == ["keyword", "rewrite"]
    assert measured.patch is measured.combined
    assert measured.left_out == (LeftOut("switch", "removes only what rewrite removes already"),)
    assert measured.combined.result is not None and measured.combined.result.problems == {}


# -- in-process: a fake measure that reads the trial copy ---------------------------------------------------------
class _Told:
    """The progress the engine tells: the lines a non-TTY stderr would show."""

    def __init__(self) -> None:
        self.totals: list[int] = []
        self.titles: list[str] = []
        self.lines: list[str] = []

    def started(self, total: int) -> None:
        self.totals.append(total)

    def running(self, title: str) -> None:
        self.titles.append(title)

    def finished(self, done: int, total: int, line: str) -> None:
        self.lines.append(f"{done}/{total} {line}")


def _fake(compile_s: dict[str, float], plain_compile: list[float]):
    """A measure that never starts a process: each flag in the copy's train.py removes its problems; the compile
    time is the flag's, or the next of the plain run's when the copy holds no change."""
    plain = iter(plain_compile)
    seen: list[str] = []

    def measure(copy: Path, seconds: float) -> RunResult:
        code = (copy / "train.py").read_text()
        flags = sorted(name for name in compile_s if f"torch.{name} = True" in code)
        seen.append("+".join(flags) or "plain")
        problems = {"TCD104 train.py f": 1, "TCD202 train.py g": 2}
        if "switch" in flags or "rewrite" in flags:
            del problems["TCD104 train.py f"]
        if "keyword" in flags:
            del problems["TCD202 train.py g"]
        took = max((compile_s[f] for f in flags), default=None)
        figures = RunFigures(
            1 if "TCD104 train.py f" in problems else 0,
            problems.get("TCD202 train.py g", 0),
            1,
            0,
            0,
            took if took is not None else next(plain),
        )
        return RunResult(figures, 0, True, 0, "ok\n", "", 1.0, problems=problems)

    return measure, seen


def _flags(root: Path, *names: str, codes: tuple[str, ...] = ("TCD104",)) -> list[Candidate]:
    return [
        Candidate(
            name,
            codes,
            (f"{name}'s finding",),
            (FileEdit(root / "train.py", AfterTorchImport(f"torch.{name} = True")),),
            False,
        )
        for name in names
    ]


def _before(compile_s: float = 10.0) -> RunResult:
    problems = {"TCD104 train.py f": 1, "TCD202 train.py g": 2}
    return RunResult(RunFigures(1, 2, 1, 0, 0, compile_s), 0, True, 0, "ok\n", "", 1.0, problems=problems)


def test_each_finished_trial_is_told_and_the_plain_run_is_repeated_for_its_noise(tmp_path):
    root = _project(tmp_path, "import torch\nprint('ok')\n")
    originals = {root / "train.py": (root / "train.py").read_text()}
    measure, seen = _fake({"keyword": 10.5}, [12.0])
    told = _Told()
    chosen = _flags(root, "keyword", codes=("TCD202",))
    measured = measure_candidates(chosen, root, originals, _before(), measure, jobs=1, budget_s=60, progress=told)
    assert seen == ["plain", "keyword"]
    assert measured.noise.compile_s.runs == 2 and measured.noise.compile_s.median == 11.0
    assert told.totals == [2] and told.titles == [PLAIN_AGAIN, "keyword"]
    assert told.lines[0].startswith(f"1/2 {PLAIN_AGAIN}: measured in ")
    assert told.lines[1].endswith("breaks 1 → 1, recompiles 2 → 0, compile 10.50 s")  # its own timing alone
    (trial,) = measured.trials
    assert trial.verdict.outcome == Outcome.FIXED and measured.patch is trial


def test_trials_forked_warm_are_timed_against_the_plain_run_s_warm_repeats_alone(tmp_path):
    # the plain run paid for importing torch (compile 10 s here); the trials and the two repeats, forked from the
    # warm process, did not: the noise is the repeats' (median 6.0 s, spread 0.4 s), and the same 6.1 s trial
    # that is no slower than the warm repeats would be judged against the cold plain run's 10 s otherwise
    root = _project(tmp_path, "import torch\nprint('ok')\n")
    originals = {root / "train.py": (root / "train.py").read_text()}
    measure, seen = _fake({"keyword": 6.1}, [5.8, 6.2])
    chosen = _flags(root, "keyword", codes=("TCD202",))
    measured = measure_candidates(
        chosen, root, originals, _before(), measure, jobs=2, budget_s=60, repeats=2, timed_by_repeats=True
    )
    assert sorted(seen) == ["keyword", "plain", "plain"]
    assert measured.noise.compile_s.runs == 2 and measured.noise.compile_s.median == pytest.approx(6.0)
    assert measured.noise.compile_s.spread == pytest.approx(0.4)
    (trial,) = measured.trials
    assert trial.verdict.outcome == Outcome.FIXED and measured.patch is trial
    cold, _ = _fake({"keyword": 6.1}, [5.8])
    judged_cold = measure_candidates(chosen, root, originals, _before(), cold, jobs=1, budget_s=60)
    assert judged_cold.noise.compile_s.runs == 2 and judged_cold.noise.compile_s.median == pytest.approx(7.9)


def test_forked_trials_whose_repeats_all_failed_are_not_timed_against_the_cold_plain_run(tmp_path):
    # the repeats, forked as the trials are, were all cut short: the plain run (cold, alone) is of another kind, so
    # no timing is compared (a 20 s trial would be a trade-off beside the plain run's 10 s)
    root = _project(tmp_path, "import torch\nprint('ok')\n")
    originals = {root / "train.py": (root / "train.py").read_text()}
    measure, _ = _fake({"keyword": 20.0}, [5.8, 6.2])

    def repeats_cut_short(copy: Path, seconds: float) -> RunResult:
        run = measure(copy, seconds)
        return run if "keyword" in (copy / "train.py").read_text() else replace(run, timed_out=True)

    chosen = _flags(root, "keyword", codes=("TCD202",))
    measured = measure_candidates(
        chosen, root, originals, _before(), repeats_cut_short, jobs=1, budget_s=60, repeats=2, timed_by_repeats=True
    )
    assert measured.noise.forked and not measured.noise.timed
    (trial,) = measured.trials
    assert trial.verdict.outcome == Outcome.FIXED


def test_the_same_edit_is_measured_once_and_the_most_promising_change_goes_first(tmp_path):
    root = _project(tmp_path, "import torch\nprint('ok')\n")
    originals = {root / "train.py": (root / "train.py").read_text()}
    measure, seen = _fake({"switch": 10.0, "keyword": 10.0}, [10.0])
    twice = _flags(root, "switch", "switch")
    twin = Candidate("the switch again", twice[1].codes, twice[1].findings, twice[1].edits, False)
    chosen = [*_flags(root, "switch"), twin, *_flags(root, "keyword", codes=("TCD202",))]
    measured = measure_candidates(chosen, root, originals, _before(), measure, jobs=1, budget_s=60)
    # the keyword's findings count 2 problems, the switch's 1: the keyword is measured first; the twin never
    assert seen == ["plain", "keyword", "switch", "keyword+switch"]
    again = next(t for t in measured.trials if t.title == "the switch again")
    assert again.verdict == again.verdict.__class__(
        Outcome.NOT_MEASURED, "the same edit as switch: measured once, there"
    )


def test_the_patch_does_not_move_with_compile_times_inside_the_noise(tmp_path):
    # the same two alternatives, measured on a quiet and on a loaded machine: one patch
    root = _project(tmp_path, "import torch\nprint('ok')\n")
    originals = {root / "train.py": (root / "train.py").read_text()}
    patches = set()
    for switch_s, rewrite_s, plain_s in ((10.0, 10.8, 10.2), (10.9, 10.1, 11.0), (11.5, 9.6, 10.4)):
        measure, _ = _fake({"switch": switch_s, "rewrite": rewrite_s}, [plain_s])
        chosen = _flags(root, "switch", "rewrite")
        measured = measure_candidates(chosen, root, originals, _before(), measure, jobs=2, budget_s=60)
        assert measured.patch is not None
        patches.add(measured.patch.title)
        assert measured.left_out == (LeftOut("switch", "removes only what rewrite removes already"),)
    assert patches == {"rewrite"}


@pytest.mark.parametrize(
    ("keyword_runs", "outcome"), [((20.0, 10.3), Outcome.FIXED), ((20.0, 19.5), Outcome.TRADE_OFF)]
)
def test_a_verdict_one_slow_run_made_is_measured_again_before_it_stands(tmp_path, keyword_runs, outcome):
    # the keyword removes its recompiles; its first run compiled in 20 s against the plain runs' 10 s (a run slowed
    # by the machine, or a change that costs compile time): measured again, the least of its runs decides
    root = _project(tmp_path, "import torch\nprint('ok')\n")
    originals = {root / "train.py": (root / "train.py").read_text()}
    runs = iter(keyword_runs)
    measure, seen = _fake({"keyword": 0.0}, [10.0, 10.2])

    def keyword_timed(copy: Path, seconds: float) -> RunResult:
        run = measure(copy, seconds)
        if "torch.keyword = True" not in (copy / "train.py").read_text():
            return run
        return replace(run, figures=replace(run.figures, compile_time_s=next(runs)))

    told = _Told()
    chosen = _flags(root, "keyword", codes=("TCD202",))
    measured = measure_candidates(
        chosen,
        root,
        originals,
        _before(),
        keyword_timed,
        jobs=1,
        budget_s=60,
        repeats=2,
        timed_by_repeats=True,
        progress=told,
    )
    assert seen == ["plain", "plain", "keyword", "keyword"]
    assert told.titles[-1] == f"keyword ({AGAIN})"
    (trial,) = measured.trials
    assert trial.verdict.outcome == outcome
    assert trial.result is not None and trial.result.figures.compile_time_s == min(keyword_runs)
    assert (measured.patch is trial) == (outcome == Outcome.FIXED)


def test_a_verdict_its_counts_made_is_not_measured_again(tmp_path):
    # slower and with more problems (the switch adds a break): worse by its counts, which a second run cannot change
    root = _project(tmp_path, "import torch\nprint('ok')\n")
    originals = {root / "train.py": (root / "train.py").read_text()}
    measure, seen = _fake({"switch": 30.0}, [10.0])

    def switch_breaks(copy: Path, seconds: float) -> RunResult:
        run = measure(copy, seconds)
        if "torch.switch = True" not in (copy / "train.py").read_text():
            return run
        return replace(run, figures=replace(run.figures, graph_breaks=3), problems={"TCD104 train.py f": 3})

    measured = measure_candidates(
        _flags(root, "switch"), root, originals, _before(), switch_breaks, jobs=1, budget_s=60
    )
    assert seen == ["plain", "switch"]
    (trial,) = measured.trials
    assert trial.verdict.outcome == Outcome.WORSE


def test_a_change_whose_trial_could_not_start_within_the_budget_says_so(tmp_path):
    root = _project(tmp_path, "import torch\nprint('ok')\n")
    originals = {root / "train.py": (root / "train.py").read_text()}
    measure, seen = _fake({"switch": 10.0}, [10.0])
    measured = measure_candidates(_flags(root, "switch"), root, originals, _before(), measure, jobs=1, budget_s=0.5)
    assert seen == []
    (trial,) = measured.trials
    assert trial.verdict.outcome == Outcome.NOT_MEASURED and trial.verdict.detail == "the budget was spent"
    assert measured.patch is None


def _two_breaks_in_one_function(copy: Path, seconds: float) -> RunResult:
    """Two breaks of one finding key (two logging calls in one function): each of `first` and `second` removes one
    of them (as does `first_again`, another form of `first`'s fix)."""
    code = (copy / "train.py").read_text()
    left = 2 - ("torch.first = True" in code or "torch.first_again = True" in code) - ("torch.second = True" in code)
    problems = {"TCD104 train.py forward": left} if left else {}
    return RunResult(RunFigures(left, 0, 1, 0, 0, 1.0), 0, True, 0, "ok\n", "", 1.0, problems=problems)


def test_changes_that_each_remove_part_of_one_finding_key_are_combined(tmp_path):
    root = _project(tmp_path, "import torch\nprint('ok')\n")
    originals = {root / "train.py": (root / "train.py").read_text()}
    first, second, again = (
        replace(flag, sites=(site,))
        for flag, site in zip(
            _flags(root, "first", "second", "first_again"), ("train.py:16", "train.py:18", "train.py:16"), strict=True
        )
    )
    before = _two_breaks_in_one_function(root, 30)
    measured = measure_candidates(
        [first, second, again], root, originals, before, _two_breaks_in_one_function, jobs=1, budget_s=60
    )
    # each guard alone leaves one break of the two; together none: the patch holds both, and the other fix of the
    # first one's line stays out
    assert measured.combined is not None and measured.patch is measured.combined
    assert sorted(c.title for c in measured.patch.candidates) == ["first", "second"]
    assert measured.patch.result is not None and measured.patch.result.problems == {}
    assert measured.left_out == (
        LeftOut("first_again", "another fix of the same line as first, which leaves no more problems"),
    )


# -- the recompile limit raised for a loop over literal numbers: the alternative of the fixes of its cause ----------
_SWEPT = {"TCD203 train.py loss": 8, "TCD402 train.py loss": 1}


def _sweep_measure(tensor_helps: bool):
    """A measure that never starts a process, for a loss called with each of ten literal margins: 8 recompiles,
    then the limit (the last two calls eager). The raised limit compiles every item (9 recompiles, 10 graphs, no
    hit); the tensor margin, where it helps, compiles one graph for every item."""

    def measure(copy: Path, seconds: float) -> RunResult:
        code = (copy / "train.py").read_text()
        raised, tensor = "torch.raised = True" in code, "torch.tensor_margin = True" in code and tensor_helps
        if tensor:
            figures, fallbacks, problems = RunFigures(0, 0, 1, 0, 0, 1.0), 0, {}
        elif raised:
            figures, fallbacks, problems = RunFigures(0, 9, 10, 0, 0, 1.0), 0, {"TCD203 train.py loss": 9}
        else:
            figures, fallbacks, problems = RunFigures(0, 8, 8, 1, 0, 1.0), 1, dict(_SWEPT)
        return RunResult(figures, fallbacks, True, 0, "ok\n", "", 1.0, problems=problems)

    return measure


def _sweep_fixes(root: Path) -> list[Candidate]:
    def flag(name: str, code: str, inherent: bool) -> Candidate:
        edit = FileEdit(root / "train.py", AfterTorchImport(f"torch.{name} = True"))
        return Candidate(
            name, (code,), ("the loss",), (edit,), False, sites=("train.py:7",), inherent_recompiles=inherent
        )

    return [flag("raised", "TCD402", True), flag("tensor_margin", "TCD203", False)]


@pytest.mark.parametrize("tensor_helps", [True, False])
def test_the_limit_raised_for_a_number_sweep_is_kept_only_where_no_fix_of_its_cause_helps(tmp_path, tensor_helps):
    root = _project(tmp_path, "import torch\nprint('ok')\n")
    originals = {root / "train.py": (root / "train.py").read_text()}
    measure = _sweep_measure(tensor_helps)
    before = measure(root, 30)
    measured = measure_candidates(_sweep_fixes(root), root, originals, before, measure, jobs=1, budget_s=60)
    raised = next(t for t in measured.trials if t.title == "raised")
    # its finding (the limit hit) is gone; the items past the limit now compile: more recompiles, judged compiling
    # more, not worse
    assert raised.verdict.outcome == Outcome.FIXED and "now compile" in (raised.verdict.detail or "")
    assert measured.patch is not None and measured.combined is None
    if tensor_helps:  # a cause: the tensor leaves fewer problems, the raise is its alternative and stays out
        assert measured.patch.title == "tensor_margin"
        assert measured.left_out == (
            LeftOut("raised", "another fix of the same line as tensor_margin, which leaves no more problems"),
        )
    else:  # nothing removes the recompiles: they are the sweep's own, and the raise is the patch
        assert measured.patch is raised and measured.left_out == ()
