"""What `doctor fix` costs against one plain run of the same program: wall and CPU of `python PROGRAM` (median of
3) and of `doctor fix PROGRAM` with its trials one at a time and two side by side (median of --repeat runs, with
their spread: a fix run is itself many runs), on the programs of tests/fix/programs/, each in a fresh git project.
ten_changes.py is the issue's case (#33): ten candidate fixes.

    .venv/bin/python bench/fix_cost.py                  # print the table
    .venv/bin/python bench/fix_cost.py --repeat 3       # three fix runs of each kind, median and spread
    .venv/bin/python bench/fix_cost.py --write          # and put it into bench/RESULTS.md (section "doctor fix")
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
PROGRAMS = ("ten_changes.py", "breaks_and_recompiles.py", "batch_sizes.py", "deep_encoder.py", "rollouts.py")
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


def _cell(samples: list[float], plain: float) -> str:
    """Median seconds (its multiple of the plain run), and the spread over the samples when there are several."""
    median = statistics.median(samples)
    spread = f" ±{(max(samples) - min(samples)) / 2:.1f}" if len(samples) > 1 else ""
    return f"{median:.1f}{spread} ({median / plain:.1f}x)"


def _row(program: str, scratch: Path, repeat: int) -> list[str]:
    root = _project(program, scratch)
    plain = [_timed([sys.executable, program], root) for _ in range(3)]
    wall = statistics.median(w for w, _, _ in plain)
    cpu = statistics.median(c for _, c, _ in plain)
    cells = [program, f"{wall:.1f}", f"{cpu:.1f}"]
    runs = 0
    for jobs in ("1", "2"):
        command = [sys.executable, "-m", "torchcompile_doctor", "fix", program, "--format", "json", "--jobs", jobs]
        walls, cpus = [], []
        for _ in range(repeat):
            fix_wall, fix_cpu, out = _timed(command, root)
            walls.append(fix_wall)
            cpus.append(fix_cpu)
            document = json.loads(out) if out.strip() else {}
            trials = document.get("trials", [])
            repeats = (document.get("noise") or {}).get("compile_s", {}).get("runs", 1)  # the plain run's repeats
            runs = 1 + repeats + sum(1 for t in trials if t["status"] not in ("not buildable", "not measured"))
        cells += [_cell(walls, wall), _cell(cpus, cpu)]
    cells.append(str(runs))
    return cells


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="write the table into bench/RESULTS.md")
    parser.add_argument("--repeat", type=int, default=1, help="doctor fix runs of each kind (median and spread)")
    parser.add_argument("--program", action="append", choices=PROGRAMS, help="only this program (repeatable)")
    arguments = parser.parse_args()
    load = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="doctor-fix-bench-") as scratch:
        rows = [_row(program, Path(scratch), arguments.repeat) for program in arguments.program or PROGRAMS]
    load_line = f"load average {load[0]:.1f} before, {os.getloadavg()[0]:.1f} after"
    header = (
        "| Program | plain wall (s) | plain CPU (s) | doctor fix -j1 wall | doctor fix -j1 CPU | doctor fix -j2 wall | "
        "doctor fix -j2 CPU | runs |\n|---|---:|---:|---:|---:|---:|---:|---:|"
    )
    table = "\n".join([header, *("| " + " | ".join(row) + " |" for row in rows)])
    print(table)
    print(load_line)
    if arguments.write:
        stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        text = (
            f"{SECTION}\n\nProduced by `.venv/bin/python bench/fix_cost.py --write --repeat {arguments.repeat}` on "
            f"{stamp}, {os.cpu_count()} logical CPUs, {load_line}. Plain: median of 3 runs of `python PROGRAM`; "
            f"doctor fix: median of {arguments.repeat} run(s) ± half their spread (a fix run is the plain run under "
            "the doctor, its repeats, one run per candidate and one of the combination: the `runs` column), "
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
