"""Benchmark: `doctor report JOB.log` on a large text log (a job's stderr under TORCH_LOGS), and its memory as the
log grows. Run by `make bench` (`.venv/bin/python bench/textlog.py`).

The log is built from the seven H100 recordings in tests/data/gpu/ the way a long GPU job writes one: torchrun's
ranks (`[rank0]:`, `[rank1]:` interleaved), a container runtime's timestamp on every line, several runs appended
(job restarts, each with new process ids); each rank of each run logs what the seven cases logged (their CUDA-graph
records, warnings, graph breaks, recompiles, perf hints), then its steady state: per call a `Running eager
function=...` record of the cudagraphs logger (the pending-backward pattern, logged per call) and the program's
own `step N loss X` line, until the run's share of the size is written. So most bytes are per-call lines, as in a
real job log, and each run's events stay few (repeated calls are counted, not kept one by one).

It times `doctor report LOG --format json -o /dev/null` on a --small-mb log and on a --size-mb log (built under
/tmp, deleted afterwards), median of --repeat runs after one warm-up (which also warms the page cache), each
run's own peak RSS from GNU time, and checks the report: one per run, each naming TCD415 (19 eager calls in the
recording, millions here) on both ranks. --write puts the figures in bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import gzip
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GPU = ROOT / "tests" / "data" / "gpu"
RESULTS = ROOT / "bench" / "RESULTS.md"
SECTION_START, SECTION_END = "<!-- textlog:start -->", "<!-- textlog:end -->"
GNU_TIME = "/usr/bin/time" if Path("/usr/bin/time").exists() else None
RUNS, RANKS = 4, 2
_PID = re.compile(r"^([VIWEC]\d{4} \d\d:\d\d:\d\d\.\d+ +)\d+ ")


def _case_lines() -> list[str]:
    lines: list[str] = []
    for case in sorted(p.name for p in GPU.iterdir() if p.is_dir()):
        lines += gzip.decompress((GPU / case / "truth.log.gz").read_bytes()).decode().splitlines(keepends=True)
    return lines


def _with_pid(line: str, pid: int) -> str:
    return _PID.sub(lambda m: f"{m.group(1)}{pid} ", line, count=1)


def build(path: Path, size_mb: int) -> None:
    """Write the log (see the module's docstring) of about `size_mb` MB."""
    cases = _case_lines()
    per_run = size_mb * 1024 * 1024 // RUNS
    stamp = "2026-11-24T19:56:54.304123456Z stderr F "
    with path.open("w", encoding="utf-8") as out:
        for run in range(RUNS):
            pids = [4000 + 10 * run + rank for rank in range(RANKS)]
            written = 0
            for line in cases:  # each rank's compile-time records, interleaved line by line
                for rank, pid in enumerate(pids):
                    text = f"{stamp}[rank{rank}]:{_with_pid(line, pid)}"
                    out.write(text)
                    written += len(text)
            step = 0
            while written < per_run:
                chunk = []
                for _ in range(1000):
                    for rank, pid in enumerate(pids):
                        chunk.append(
                            f"{stamp}[rank{rank}]:V1124 19:57:50.583000 {pid} torch/_inductor/cudagraph_trees.py:2386]"
                            f" [__cudagraphs] [0/0] Running eager function=partition_0\n"
                            f"{stamp}[rank{rank}]:step {step} loss {1 / (step + 1):.6f}\n"
                        )
                    step += 1
                text = "".join(chunk)
                out.write(text)
                written += len(text)


def _doctor(log: Path) -> tuple[float, float, str]:
    """(wall seconds, peak RSS MB, stdout) of one `doctor report LOG --format json`."""
    doctor = str(Path(sys.executable).parent / "doctor")
    argv = [doctor, "report", str(log), "--format", "json"]
    with tempfile.NamedTemporaryFile("r") as rss, tempfile.TemporaryFile("w+") as out:
        timed = ([GNU_TIME, "-f", "%M", "-o", rss.name] if GNU_TIME else []) + argv
        started = time.perf_counter()
        proc = subprocess.run(timed, stdout=out, stderr=subprocess.DEVNULL, check=False)
        wall = time.perf_counter() - started
        if proc.returncode not in (0, 3):
            raise SystemExit(f"doctor report failed: exit {proc.returncode}")
        peak = rss.read().split()
        out.seek(0)
        return wall, (int(peak[-1]) / 1024 if peak and peak[-1].isdigit() else float("nan")), out.read()


def _check(stdout: str) -> str:
    """The reports are right: one per run, each with TCD415 on both ranks and the calls counted."""
    reports = [json.loads(part) for part in _json_documents(stdout)]
    ok = len(reports) == RUNS and all(
        any(f["code"] == "TCD415" and f["ranks"] == list(range(RANKS)) for f in r["findings"]) for r in reports
    )
    pending = [[f for f in r["findings"] if f["code"] == "TCD415"] for r in reports]
    calls = [max((f["impact"]["occurrences"] for f in found), default=0) for found in pending]
    return f"{'ok' if ok else 'WRONG'} ({len(reports)} reports; eager calls per rank and run: {calls})"


def _json_documents(text: str) -> list[str]:
    """The JSON report of each run (the terminal of several reports separates them; JSON is one list or many)."""
    stripped = text.strip()
    data = json.loads(stripped)
    return [json.dumps(item) for item in data] if isinstance(data, list) else [stripped]


def measure(size_mb: int, repeat: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="doctor-textlog-") as tmp:
        log = Path(tmp) / "job.log"
        started = time.perf_counter()
        build(log, size_mb)
        built_s = time.perf_counter() - started
        size = log.stat().st_size
        _doctor(log)  # warm-up
        runs = [_doctor(log) for _ in range(repeat)]
        walls = [wall for wall, _, _ in runs]
        return {
            "mb": size / 1e6,
            "lines": sum(1 for _ in log.open("rb")),
            "built_s": built_s,
            "wall": statistics.median(walls),
            "range": (min(walls), max(walls)),
            "peak_mb": max(peak for _, peak, _ in runs),
            "check": _check(runs[-1][2]),
        }


def _row(label: str, m: dict) -> str:
    low, high = m["range"]
    return (
        f"| {label} | {m['mb']:.0f} MB, {m['lines'] / 1e6:.1f} M lines | {m['wall']:.2f} | {low:.2f}-{high:.2f} "
        f"| {m['mb'] / m['wall']:.0f} | {m['peak_mb']:.0f} | {m['check']} |"
    )


def section(small: dict, big: dict, repeat: int) -> str:
    load = os.getloadavg()[0]
    when = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return "\n".join(
        [
            SECTION_START,
            f"Measured {when} on this project's machine (load average {load:.1f} when it started), "
            f"median of {repeat} runs after one warm-up; `bench/textlog.py` says how the log is built.",
            "",
            "| log | size | median wall (s) | min-max (s) | MB/s | peak RSS (MB) | report |",
            "|---|---|---:|---:|---:|---:|---|",
            _row("small", small),
            _row("big", big),
            "",
            f"- Memory as the log grows {big['mb'] / small['mb']:.1f}x: peak RSS {small['peak_mb']:.0f} MB -> "
            f"{big['peak_mb']:.0f} MB (the reader holds one line, one record and the events; repeated calls are "
            "counted, not kept).",
            SECTION_END,
        ]
    )


def write(text: str) -> None:
    results = RESULTS.read_text(encoding="utf-8")
    if SECTION_START in results:
        head, _, rest = results.partition(SECTION_START)
        _, _, tail = rest.partition(SECTION_END)
        results = head + text + tail
    else:
        results = results.rstrip("\n") + "\n\n## A job's text log (issue 26)\n\n" + text + "\n"
    RESULTS.write_text(results, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mb", type=int, default=1024)
    parser.add_argument("--small-mb", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    small = measure(args.small_mb, args.repeat)
    print(_row("small", small), flush=True)
    big = measure(args.size_mb, args.repeat)
    print(_row("big", big), flush=True)
    text = section(small, big, args.repeat)
    print(text)
    if args.write:
        write(text)


if __name__ == "__main__":
    main()
