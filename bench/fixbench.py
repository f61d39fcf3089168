"""The fix benchmark: `doctor fix --apply` on each program of bench/fixbench, judged by torch's own counts.

Each case (bench/fixbench/cases/NAME: the dev set; bench/fixbench/heldout/NAME: the held-out quarter, see
split.yaml) is copied into a fresh git project in a temp folder, without its by-hand fix and its case.yaml; the
installed `doctor fix PROGRAM --apply --jobs 2 --backend eager` edits it there; then torch's counts (graph breaks,
recompiles, graphs, recompile-limit hits: bench/fixbench/measure.py) and what it prints are measured on the edited
program and compared with the original's and with the by-hand fix's counts recorded in case.yaml:

    fixed      the counts reach the by-hand fix's (and it still compiles something where the by-hand fix does)
    improved   fewer graph breaks + recompiles + limit hits than before, not all the way
    no effect  an edit that leaves the counts as they were
    no edit    doctor fix wrote nothing
    worse      more than before, or an edit that compiles nothing where the by-hand fix compiles
    broken     the edited program exits otherwise or prints other numbers (compared to a float tolerance)
    error      doctor fix crashed, exited 2 or 3, or ran past its time

One case at a time (2 shared cores); each result is kept as JSON under --results, so `--resume` goes on
where a run stopped.

    make fixbench                                   # the dev set (FIXBENCH_SET=dev|heldout|all)
    .venv/bin/python bench/fixbench.py --set heldout --json
    .venv/bin/python bench/fixbench.py --case print_shape_in_forward --case np_quantile_clip
    .venv/bin/python bench/fixbench.py --write-split     # choose the held-out quarter again (seed in split.yaml)
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from types import ModuleType

import yaml

ROOT = Path(__file__).resolve().parent / "fixbench"
SETS = {"dev": ("cases",), "heldout": ("heldout",), "all": ("cases", "heldout")}
SPLIT_FILE = ROOT / "split.yaml"
VERDICTS = ("fixed", "improved", "no effect", "no edit", "worse", "broken", "error")
# what a case folder holds besides its own modules, and what the doctor must not see of it
CASE_FILES = ("program.py", "fixed.py", "case.yaml")
HIDDEN_FROM_DOCTOR = ("fixed.py", "case.yaml")
REQUIRED_KEYS = ("source", "family", "what", "fix", "measured")
FAMILIES = (
    "side_effect",
    "one_time_work",
    "mutation",
    "changing_numbers",
    "grad_mode",
    "data_dependent",
    "numpy_math",
    "compile_scope",
    "library_argument",
    "recompile_limit",
)


def _load_measure() -> ModuleType:
    # bench/fixbench is a folder of cases, not a package: its measuring script is loaded by path
    spec = importlib.util.spec_from_file_location("fixbench_measure", ROOT / "measure.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


measure_module = _load_measure()


@dataclass(frozen=True)
class Counts:
    """Torch's counts for one run of a program."""

    graph_breaks: int
    recompiles: int
    graphs: int
    limit_hits: int

    @property
    def problems(self) -> int:
        return self.graph_breaks + self.recompiles + self.limit_hits

    def short(self) -> str:
        return f"{self.graph_breaks}/{self.recompiles}/{self.graphs}" + (
            f"+{self.limit_hits}L" if self.limit_hits else ""
        )


@dataclass(frozen=True)
class Case:
    """One program of the benchmark, as its folder and case.yaml describe it."""

    name: str
    folder: Path
    split: str
    family: str
    source: str
    by_hand: Counts
    recorded_before: Counts


@dataclass(frozen=True)
class Outcome:
    """What one run of the scorer measured on a case, before its verdict."""

    doctor_exit: int | None  # None: stopped at the time limit
    doctor_crashed: bool
    edited: bool
    before: Counts
    after: Counts | None
    before_exit: int
    after_exit: int | None
    same_output: bool


@dataclass(frozen=True)
class CaseResult:
    name: str
    family: str
    split: str
    verdict: str
    note: str
    before: Counts
    after: Counts | None
    by_hand: Counts
    doctor_exit: int | None
    doctor_seconds: float
    seconds: float
    diff: str


def _counts(record: Mapping[str, object]) -> Counts:
    return Counts(
        graph_breaks=int(str(record["graph_breaks"])),
        recompiles=int(str(record["recompiles"])),
        graphs=int(str(record["graphs"])),
        limit_hits=int(str(record.get("limit_hits", 0))),
    )


def _case_yaml(folder: Path) -> dict[str, object]:
    data = yaml.safe_load((folder / "case.yaml").read_text())
    return data if isinstance(data, dict) else {}


def read_case(folder: Path, split: str) -> Case:
    data = _case_yaml(folder)
    measured = data["measured"]
    return Case(
        name=folder.name,
        folder=folder,
        split=split,
        family=str(data["family"]),
        source=str(data["source"]),
        by_hand=_counts(measured["fixed"]),
        recorded_before=_counts(measured["program"]),
    )


def case_folders(which: str, root: Path = ROOT) -> list[tuple[Path, str]]:
    """The case folders of a set, each with its split name (dev or heldout), sorted by name."""
    found = []
    for sub in SETS[which]:
        split = "dev" if sub == "cases" else "heldout"
        found += [(p, split) for p in sorted((root / sub).iterdir()) if p.is_dir() and (p / "program.py").exists()]
    return sorted(found, key=lambda item: item[0].name)


def heldout_split(families: Mapping[str, str], seed: int, fraction: float = 0.25) -> list[str]:
    """The held-out quarter, families balanced: a seeded shuffle of each family's cases takes one in four of each
    (rounded down), then the rest of the quota comes from families drawn by the same generator, at most one more
    from each."""
    rng = random.Random(seed)
    by_family: dict[str, list[str]] = {}
    for name in sorted(families):
        by_family.setdefault(families[name], []).append(name)
    quota = round(len(families) * fraction)
    chosen: list[str] = []
    leftovers: dict[str, list[str]] = {}
    for family in sorted(by_family):
        names = by_family[family][:]
        rng.shuffle(names)
        take = int(len(names) * fraction)
        chosen += names[:take]
        leftovers[family] = names[take:]
    extra_families = [f for f in sorted(leftovers) if leftovers[f]]
    rng.shuffle(extra_families)
    for family in extra_families[: max(0, quota - len(chosen))]:
        chosen.append(leftovers[family][0])
    return sorted(chosen)


def read_split(path: Path = SPLIT_FILE) -> tuple[int, list[str]]:
    data = yaml.safe_load(path.read_text())
    return int(data["seed"]), [str(n) for n in data["heldout"]]


def added_after_the_draw(path: Path = SPLIT_FILE) -> list[str]:
    """Cases written after the held-out quarter was drawn: dev cases, never in the draw (a new case must not move a
    program the team has not seen into the dev set, nor one it has tuned on into the held-out quarter)."""
    return [str(n) for n in yaml.safe_load(path.read_text()).get("added_to_dev") or ()]


def write_split(seed: int) -> list[str]:
    """Choose the held-out quarter from every case's family, write split.yaml and move the folders (git mv)."""
    folders = case_folders("all")
    families = {folder.name: str(yaml.safe_load((folder / "case.yaml").read_text())["family"]) for folder, _ in folders}
    heldout = heldout_split(families, seed)
    lines = [
        "# The held-out quarter of the fix benchmark, chosen by bench/fixbench.py --write-split: a seeded shuffle",
        "# within each family (one in four of each, the rest of the quota from families the same seed draws).",
        "# These programs are never used to tune transforms (bench/fixbench/heldout/README.md).",
        f"seed: {seed}",
        "heldout:",
        *[f"  - {name}" for name in heldout],
        "# cases written after the draw: dev cases, never drawn (bench/fixbench.py added_after_the_draw)",
        "added_to_dev: []",
    ]
    SPLIT_FILE.write_text("\n".join(lines) + "\n")
    for folder, _ in folders:
        target = "heldout" if folder.name in heldout else "cases"
        if folder.parent.name != target:
            subprocess.run(["git", "mv", str(folder), str(ROOT / target / folder.name)], check=True)
    return heldout


def classify(outcome: Outcome, by_hand: Counts) -> tuple[str, str]:
    """The verdict on one doctor run, and a few words on why."""
    if outcome.doctor_exit is None:
        return "error", "doctor fix ran past its time limit"
    if outcome.doctor_crashed or outcome.doctor_exit not in (0, 1):
        return "error", f"doctor fix exited {outcome.doctor_exit}"
    if not outcome.edited or outcome.after is None:
        return "no edit", ""
    after, before = outcome.after, outcome.before
    if outcome.after_exit != outcome.before_exit:
        return "broken", f"exit {outcome.before_exit} -> {outcome.after_exit}"
    if not outcome.same_output:
        return "broken", "prints other numbers"
    if after.graphs == 0 and by_hand.graphs > 0:
        return "worse", "the edited program compiles nothing"
    if (
        after.graph_breaks <= by_hand.graph_breaks
        and after.recompiles <= by_hand.recompiles
        and after.limit_hits <= by_hand.limit_hits
    ):
        return "fixed", ""
    if after.problems > before.problems:
        return "worse", f"{before.problems} -> {after.problems} breaks+recompiles+limit hits"
    if after.problems < before.problems:
        return "improved", f"{before.problems} -> {after.problems} (by hand: {by_hand.problems})"
    return "no effect", "an edit that left the counts as they were"


def _git(project: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(project), *args], capture_output=True, text=True, check=True)
    return done.stdout


def _project(case: Case, scratch: Path) -> Path:
    project = scratch / case.name
    shutil.copytree(case.folder, project, ignore=shutil.ignore_patterns("__pycache__", *HIDDEN_FROM_DOCTOR))
    _git(project, "init", "-q")
    _git(project, "add", ".")
    _git(project, "-c", "user.email=fixbench@example.com", "-c", "user.name=fixbench", "commit", "-qm", "case")
    return project


def _measured(program: Path) -> tuple[Counts, int, str]:
    result = measure_module.measure(program)
    counts = Counts(result.graph_breaks, result.recompiles, result.graphs, result.limit_hits)
    return counts, int(result.exit_code), str(result.stdout)


def _doctor() -> str:
    beside = Path(sys.executable).parent / "doctor"
    return str(beside) if beside.exists() else "doctor"


def run_case(case: Case, scratch: Path, budget: float, timeout: float) -> CaseResult:
    started = time.perf_counter()
    project = _project(case, scratch)
    before, before_exit, before_out = _measured(project / "program.py")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TORCH_LOGS", "TORCH_TRACE"))}
    env.setdefault("OMP_NUM_THREADS", "1")
    command = [_doctor(), "fix", "program.py", "--apply", "--jobs", "2", "--backend", "eager", "--budget", str(budget)]
    doctor_started = time.perf_counter()
    try:
        done = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, timeout=timeout)
        doctor_exit: int | None = done.returncode
        stderr, stdout = done.stderr, done.stdout
    except subprocess.TimeoutExpired:
        doctor_exit, stderr, stdout = None, "", ""
    doctor_seconds = time.perf_counter() - doctor_started
    crashed = "Traceback (most recent call last)" in stderr or "internal error" in stderr
    diff = _git(project, "diff")
    edited = bool(diff.strip())
    after: Counts | None = None
    after_exit: int | None = None
    same = False
    if edited:
        after, after_exit, after_out = _measured(project / "program.py")
        same = bool(measure_module.same_numbers(before_out, after_out))
    outcome = Outcome(doctor_exit, crashed, edited, before, after, before_exit, after_exit, same)
    verdict, note = classify(outcome, case.by_hand)
    if verdict == "error" and stderr.strip():
        note += ": " + stderr.strip().splitlines()[-1][:200]
    if verdict == "no edit" and stdout.strip():  # the doctor's own last word on why it wrote nothing
        note = stdout.strip().splitlines()[-1].strip()[:160]
    return CaseResult(
        name=case.name,
        family=case.family,
        split=case.split,
        verdict=verdict,
        note=note,
        before=before,
        after=after,
        by_hand=case.by_hand,
        doctor_exit=doctor_exit,
        doctor_seconds=round(doctor_seconds, 1),
        seconds=round(time.perf_counter() - started, 1),
        diff=diff,
    )


def _result_from_json(data: Mapping[str, object]) -> CaseResult:
    def counts(value: object) -> Counts | None:
        return _counts(value) if isinstance(value, dict) else None

    before, by_hand = counts(data["before"]), counts(data["by_hand"])
    assert before is not None and by_hand is not None
    doctor_exit = data["doctor_exit"]
    return CaseResult(
        name=str(data["name"]),
        family=str(data["family"]),
        split=str(data["split"]),
        verdict=str(data["verdict"]),
        note=str(data["note"]),
        before=before,
        after=counts(data["after"]),
        by_hand=by_hand,
        doctor_exit=int(str(doctor_exit)) if doctor_exit is not None else None,
        doctor_seconds=float(str(data["doctor_seconds"])),
        seconds=float(str(data["seconds"])),
        diff=str(data["diff"]),
    )


def totals(results: Sequence[CaseResult]) -> dict[str, int]:
    counted = Counter(r.verdict for r in results)
    return {verdict: counted.get(verdict, 0) for verdict in VERDICTS}


def table(results: Sequence[CaseResult]) -> str:
    header = (
        f"{'case':32} {'family':17} {'split':7} {'verdict':9} {'before':9} {'after':9} {'by hand':9} {'s':>6}  note"
    )
    lines = [header, "-" * len(header)]
    for r in results:
        after = r.after.short() if r.after else "-"
        lines.append(
            f"{r.name:32} {r.family:17} {r.split:7} {r.verdict:9} {r.before.short():9} {after:9} "
            f"{r.by_hand.short():9} {r.seconds:6.1f}  {r.note}"
        )
    lines.append("(counts: graph breaks/recompiles/graphs, +NL: recompile-limit hits)")
    n = len(results)
    summary = ", ".join(f"{v} {c}" for v, c in totals(results).items() if c)
    seconds = sum(r.seconds for r in results)
    lines.append(f"{n} programs: {summary}; {seconds:.0f} s in all, {seconds / max(n, 1):.0f} s per program")
    return "\n".join(lines)


RESULTS_MD = ROOT.parent / "RESULTS.md"
SECTION = "## fixbench: doctor fix on the team's own dev set and its held-out quarter"


def _figures(results: Sequence[CaseResult]) -> str:
    n = len(results)
    counted = totals(results)
    fixed, improved = counted["fixed"], counted["improved"]
    shares = f"fixed {fixed}/{n} ({100 * fixed / max(n, 1):.0f}%), fixed or improved {fixed + improved}/{n}"
    rest = ", ".join(f"{v} {c}" for v, c in counted.items() if c and v not in ("fixed", "improved"))
    seconds = [r.seconds for r in results]
    per = f"{sum(seconds) / max(n, 1):.0f} s per program (max {max(seconds, default=0):.0f} s)"
    return f"{shares}; {rest or 'nothing else'}; {per}"


def markdown(results: Sequence[CaseResult], when: str, torch_version: str, total: Mapping[str, int]) -> str:
    """The RESULTS.md section: the figures of each split, then one row per program."""
    lines = [
        SECTION,
        "",
        f"Produced by bench/fixbench.py (`make fixbench`, FIXBENCH_SET=heldout then dev) on {when}, torch "
        f"{torch_version}, 2 shared CPU cores, one program at a time, `doctor fix PROGRAM --apply --jobs 2 --backend "
        "eager --budget B` in a fresh git copy of each case (without its fixed.py and case.yaml). Counts are torch's "
        "own (bench/fixbench/measure.py): graph breaks/recompiles/graphs, +NL for recompile-limit hits; **fixed** "
        "means the edited program reaches the by-hand fix's counts and prints the "
        "same numbers.",
        "",
    ]
    for split in ("heldout", "dev"):
        mine = [r for r in results if r.split == split]
        lines.append(f"- **{split}** ({len(mine)} of {total.get(split, 0)} programs run): {_figures(mine)}")
    lines += ["", "| program | family | split | verdict | before | after | by hand | s | note |", "|---" * 9 + "|"]
    for r in sorted(results, key=lambda r: (r.split != "heldout", r.family, r.name)):
        after = r.after.short() if r.after else "-"
        note = r.note.replace("|", "/")
        lines.append(
            f"| {r.name} | {r.family} | {r.split} | {r.verdict} | {r.before.short()} | {after} | "
            f"{r.by_hand.short()} | {r.seconds:.0f} | {note} |"
        )
    return "\n".join(lines) + "\n"


def write_section(text: str, path: Path = RESULTS_MD) -> None:
    """Put the section into RESULTS.md, replacing an earlier one (up to the next `## ` heading)."""
    current = path.read_text()
    if SECTION in current:
        head, rest = current.split(SECTION, 1)
        tail = rest[rest.find("\n## ") + 1 :] if "\n## " in rest else ""
        current = head + text + ("\n" + tail if tail else "")
    else:
        current = current.rstrip("\n") + "\n\n" + text
    path.write_text(current)


def kept_results(results_dir: Path) -> list[CaseResult]:
    """Every result kept in results_dir for a case that still exists, in its current split."""
    split_of = {folder.name: split for folder, split in case_folders("all")}
    kept = []
    for path in sorted(results_dir.glob("*.json")):
        result = _result_from_json(json.loads(path.read_text()))
        if result.name in split_of:
            kept.append(replace(result, split=split_of[result.name]))
    return kept


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", default=os.environ.get("FIXBENCH_SET", "dev"), choices=sorted(SETS))
    parser.add_argument("--case", action="append", default=[], help="only this case (repeatable)")
    parser.add_argument("--json", action="store_true", help="the results and totals as JSON")
    parser.add_argument("--results", type=Path, default=ROOT / "results", help="one JSON per case is kept here")
    parser.add_argument("--resume", action="store_true", help="skip the cases with a result in --results")
    parser.add_argument("--budget", type=float, default=300.0, help="doctor fix --budget per program (seconds)")
    parser.add_argument("--timeout", type=float, default=900.0, help="stop doctor fix after this many seconds")
    parser.add_argument("--write-split", action="store_true", help="choose the held-out quarter (seed in split.yaml)")
    parser.add_argument(
        "--write", action="store_true", help="after the run, write every kept result into bench/RESULTS.md"
    )
    args = parser.parse_args()
    if args.write_split:
        seed = read_split()[0] if SPLIT_FILE.exists() else 33
        print("held out:", ", ".join(write_split(seed)))
        return 0
    folders = case_folders(args.set)
    if args.case:
        unknown = set(args.case) - {folder.name for folder, _ in folders}
        if unknown:
            print(f"fixbench: no such case in set {args.set}: {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        folders = [(folder, split) for folder, split in folders if folder.name in args.case]
    unmeasured = [folder.name for folder, _ in folders if "measured" not in _case_yaml(folder)]
    if unmeasured:
        print(f"fixbench: no measured counts yet (measure.py --record): {', '.join(unmeasured)}", file=sys.stderr)
        return 2
    cases = [read_case(folder, split) for folder, split in folders]
    args.results.mkdir(parents=True, exist_ok=True)
    results = []
    with tempfile.TemporaryDirectory(prefix="fixbench-") as scratch:
        for case in cases:
            kept = args.results / f"{case.name}.json"
            if args.resume and kept.exists():
                results.append(_result_from_json(json.loads(kept.read_text())))
                continue
            result = run_case(case, Path(scratch), args.budget, args.timeout)
            kept.write_text(json.dumps(asdict(result), indent=1) + "\n")
            results.append(result)
            if not args.json:
                print(f"{case.name}: {result.verdict} ({result.seconds:.0f} s) {result.note}", flush=True)
    if args.json:
        print(json.dumps({"results": [asdict(r) for r in results], "totals": totals(results)}, indent=1))
    else:
        print(table(results))
    if args.write:
        total = Counter(split for _, split in case_folders("all"))
        when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        write_section(markdown(kept_results(args.results), when, measure_module.torch_version(), total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
