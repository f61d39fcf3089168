"""Torch's own counts for one program of the fix benchmark, read from torch itself (not from the doctor).

The program runs in a fresh interpreter, in its own folder, as `python program.py` would run it; around it a small
bootstrap turns on torch's own `graph_breaks` and `recompiles` logs (what TORCH_LOGS="graph_breaks,recompiles"
shows) and counts, when the program ends: graph breaks (each "Graph break in user code" record: torch logs a
break site once), graphs (`torch._dynamo.utils.counters["stats"]["unique_graphs"]`), recompiles (each
"Recompiling function" record) and recompile-limit hits (each "torch._dynamo hit config.recompile_limit" warning).

    .venv/bin/python bench/fixbench/measure.py bench/fixbench/cases/print_in_forward/program.py
    .venv/bin/python bench/fixbench/measure.py PROGRAM --json
    .venv/bin/python bench/fixbench/measure.py --record bench/fixbench/cases/*/   # write each case.yaml's counts
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

# Runs inside the program's interpreter: counts, then the program as __main__, then the counts into a file.
_BOOTSTRAP = r"""
import json, logging, runpy, sys
import torch
import torch._dynamo.utils as dynamo_utils
import torch._logging

counts_path, program = sys.argv[1], sys.argv[2]
sys.argv = sys.argv[2:]
recompiled = []
limit_hits = []
breaks = []
last = [None]

class _Recompiles(logging.Handler):
    def emit(self, record):
        if record is last[0]:  # one record seen again by a second handler up the logger chain
            return
        last[0] = record
        message = record.getMessage()
        if "Recompiling function" in message:
            recompiled.append(message.splitlines()[0])
        elif message.startswith("Graph break in user code"):
            breaks.append(message.splitlines()[0])
        elif message.startswith("torch._dynamo hit config."):
            limit_hits.append(message.splitlines()[0])

torch._logging.set_logs(recompiles=True, graph_breaks=True)
logging.getLogger("torch._dynamo").addHandler(_Recompiles())
for name in list(logging.root.manager.loggerDict):
    if name.endswith(("__recompiles", "__graph_breaks")):
        logging.getLogger(name).addHandler(_Recompiles())
code = 0
try:
    runpy.run_path(program, run_name="__main__")
except SystemExit as stop:
    code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
finally:
    counters = dynamo_utils.counters
    with open(counts_path, "w") as out:
        json.dump({
            "graph_breaks": len(breaks),
            "graphs": counters["stats"]["unique_graphs"],
            "recompiles": len(recompiled),
            "limit_hits": len(limit_hits),
        }, out)
sys.exit(code)
"""


@dataclass(frozen=True)
class Measurement:
    """What one run of a program gave: torch's counts, its exit status, what it printed, and its wall time."""

    graph_breaks: int
    recompiles: int
    graphs: int
    limit_hits: int
    exit_code: int
    stdout: str
    seconds: float


def measure(program: Path, timeout: float = 300.0) -> Measurement:
    """Run PROGRAM in its own folder under a fresh interpreter and read torch's counts when it ends."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TORCH_LOGS", "TORCH_TRACE", "TORCHDYNAMO"))}
    env.setdefault("OMP_NUM_THREADS", "1")
    with tempfile.TemporaryDirectory(prefix="fixbench-counts-") as scratch:
        counts_path = Path(scratch) / "counts.json"
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", _BOOTSTRAP, str(counts_path), program.name],
            cwd=program.parent,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        seconds = time.perf_counter() - started
        counts = json.loads(counts_path.read_text()) if counts_path.exists() else {}
    return Measurement(
        graph_breaks=int(counts.get("graph_breaks", -1)),
        recompiles=int(counts.get("recompiles", -1)),
        graphs=int(counts.get("graphs", -1)),
        limit_hits=int(counts.get("limit_hits", -1)),
        exit_code=done.returncode,
        stdout=done.stdout,
        seconds=round(seconds, 2),
    )


_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def printed_numbers(stdout: str) -> list[float]:
    """Every number a program printed, in order (`tensor(0.0064)` and `0.0064` read alike)."""
    return [float(token) for token in _NUMBER.findall(stdout)]


def same_numbers(before: str, after: str, rel: float = 1e-3, abs_tol: float = 1e-5) -> bool:
    """Whether two runs printed the same numbers, to a float tolerance (as `doctor fix` compares them)."""
    a, b = printed_numbers(before), printed_numbers(after)
    return len(a) == len(b) and all(math.isclose(x, y, rel_tol=rel, abs_tol=abs_tol) for x, y in zip(a, b, strict=True))


def counts_line(result: Measurement) -> str:
    return (
        f"{{graph_breaks: {result.graph_breaks}, recompiles: {result.recompiles}, graphs: {result.graphs}, "
        f"limit_hits: {result.limit_hits}}}"
    )


def record(case: Path) -> str:
    """Measure a case's program.py and fixed.py and write the counts into its case.yaml (the `measured:` block)."""
    program, fixed = measure(case / "program.py"), measure(case / "fixed.py")
    problems = [f"{name} exited {r.exit_code}" for name, r in (("program", program), ("fixed", fixed)) if r.exit_code]
    if not same_numbers(program.stdout, fixed.stdout):
        problems.append("program.py and fixed.py print different numbers")
    yaml_path = case / "case.yaml"
    head = yaml_path.read_text().split("measured:")[0].rstrip("\n")
    block = (
        f"measured:\n  torch: {torch_version()}\n  program: {counts_line(program)}\n  fixed: {counts_line(fixed)}\n"
        f"  seconds: {{program: {program.seconds}, fixed: {fixed.seconds}}}\n"
    )
    yaml_path.write_text(head + "\n" + block)
    status = "; ".join(problems) if problems else "ok"
    return f"{case.name}: program {counts_line(program)} fixed {counts_line(fixed)} {status}"


def torch_version() -> str:
    done = subprocess.run(
        [sys.executable, "-c", "import torch; print(torch.__version__)"], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("program", type=Path, nargs="+", help="a program, or case folders with --record")
    parser.add_argument("--json", action="store_true", help="one JSON object instead of a line")
    parser.add_argument("--record", action="store_true", help="measure each case folder and write its case.yaml")
    args = parser.parse_args()
    if args.record:
        for case in args.program:
            print(record(case.resolve()), flush=True)
        return 0
    args.program = args.program[0]
    result = measure(args.program.resolve())
    if args.json:
        print(json.dumps(asdict(result)))
    else:
        print(
            f"graph_breaks={result.graph_breaks} recompiles={result.recompiles} graphs={result.graphs} "
            f"limit_hits={result.limit_hits} "
            f"exit={result.exit_code} seconds={result.seconds}"
        )
        print(result.stdout, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
