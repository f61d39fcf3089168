"""What `doctor fix` costs against one plain run of the same program: wall and CPU of `python PROGRAM` (median of
3) and of `doctor fix PROGRAM` with its trials one at a time and two side by side (one run each: a fix run is
itself many runs), on the programs of tests/fix/programs/, each in a fresh git project.

    .venv/bin/python bench/fix_cost.py            # print the table
    .venv/bin/python bench/fix_cost.py --write    # and put it into bench/RESULTS.md (section "doctor fix")
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PROGRAMS = ("breaks_and_recompiles.py", "batch_sizes.py", "deep_encoder.py", "rollouts.py")
RESULTS = REPO / "bench" / "RESULTS.md"
SECTION = "## doctor fix: its cost against one plain run"


def _timed(command: list[str], cwd: Path) -> tuple[float, float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TORCH_LOGS", "TORCH_TRACE"))}
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def _project(program: str, into: Path) -> Path:
    root = into / program.removesuffix(".py")
    root.mkdir()
    shutil.copy(REPO / "tests" / "fix" / "programs" / program, root / program)
    for args in (["init", "-q"], ["add", "."], ["-c", "user.email=b@b", "-c", "user.name=b", "commit", "-qm", "b"]):
        subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)
    return root


def _row(program: str, scratch: Path) -> list[str]:
    root = _project(program, scratch)
    plain = [_timed([sys.executable, program], root) for _ in range(3)]
    wall = statistics.median(w for w, _, _ in plain)
    cpu = statistics.median(c for _, c, _ in plain)
    cells = [program, f"{wall:.1f}", f"{cpu:.1f}"]
    for jobs in ("1", "2"):
        command = [sys.executable, "-m", "torchcompile_doctor", "fix", program, "--format", "json", "--jobs", jobs]
        fix_wall, fix_cpu, out = _timed(command, root)
        document = json.loads(out) if out.strip() else {}
        trials = document.get("trials", [])
        repeats = (document.get("noise") or {}).get("compile_s", {}).get("runs", 1)  # the plain run and its repeats
        runs = repeats + sum(1 for t in trials if t["status"] not in ("not buildable", "not measured"))
        cells += [f"{fix_wall:.1f} ({fix_wall / wall:.1f}x)", f"{fix_cpu:.1f} ({fix_cpu / cpu:.1f}x)"]
    cells.append(str(runs))
    return cells


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="write the table into bench/RESULTS.md")
    write = parser.parse_args().write
    with tempfile.TemporaryDirectory(prefix="doctor-fix-bench-") as scratch:
        rows = [_row(program, Path(scratch)) for program in PROGRAMS]
    header = (
        "| Program | plain wall (s) | plain CPU (s) | doctor fix -j1 wall | doctor fix -j1 CPU | doctor fix -j2 wall | "
        "doctor fix -j2 CPU | runs |\n|---|---:|---:|---:|---:|---:|---:|---:|"
    )
    table = "\n".join([header, *("| " + " | ".join(row) + " |" for row in rows)])
    print(table)
    if write:
        stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        text = (
            f"{SECTION}\n\nProduced by `.venv/bin/python bench/fix_cost.py --write` on {stamp}, {os.cpu_count()} "
            "logical CPUs. Plain: median of 3 runs of `python PROGRAM`; doctor fix: one run each (it is the plain "
            "run under the doctor, one run per candidate and one of the combination: the `runs` column), "
            "ratios against the plain run.\n\n" + table + "\n"
        )
        RESULTS.write_text(_with_section(RESULTS.read_text(encoding="utf-8"), text), encoding="utf-8")


def _with_section(current: str, text: str) -> str:
    """The results file with this bench's section replaced where it stands (up to the next `## ` heading: the
    sections other benches wrote after it stay), or added at the end."""
    before, found, after = current.partition(f"\n{SECTION}\n")
    if not found:
        return current.rstrip("\n") + "\n\n" + text
    rest = after[after.find("\n## ") :] if "\n## " in after else ""
    return before.rstrip("\n") + "\n\n" + text + rest


if __name__ == "__main__":
    main()
