"""Benchmark: how fast `doctor report` ingests a large TORCH_TRACE, and in how much memory, beside tlparse.

Run by `make bench` (`.venv/bin/python bench/ingest.py`). In one run it:

1. captures seed traces: a few samples run under `doctor explain --backend inductor --fresh-inductor-cache
   --artifacts` (inductor on a cold cache, so the log carries its big payloads: output code, pre/post-grad
   and AOT graphs, guard trees), kept in bench/.data/seeds/ (gitignored) and reused by later runs;
2. builds a trace of at least --size-mb MB from them: the seed records repeated, each copy's
   `frame_id`s moved past the previous copy's, so the file stays a valid trace of many compiled frames
   (interned strings are written once, payloads and their md5 untouched); tlparse reads it;
3. times, interleaved, median of --repeat runs after one dropped warm-up (which also warms the page cache):
   `doctor report BIG --format json -o /dev/null`, `tlparse BIG --overwrite -o OUT --no-browser`, and a
   plain streaming Python pass (envelopes JSON-decoded, payload lines skipped) as the floor; the peak
   RSS of each run is its own (through GNU time), not the maximum over all children nor this process's;
4. with --gb N, one doctor run on an N GB trace built under /tmp and deleted afterwards (memory must stay
   flat as the log grows).

tlparse (PyPI `tlparse`, a Rust binary wheel) is not a dependency of the doctor: it is pip-installed
into this interpreter's environment when missing, or its rows are skipped with a message (--no-install).
Options: --size-mb (default 120), --repeat (default 3), --gb, --write (update the ingest section of
bench/RESULTS.md), --keep-big (keep the big file in bench/.data/ for the next run).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from torchcompile_doctor.capture_layout import CaptureFolder

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "bench" / ".data"
SEEDS = DATA / "seeds"
RESULTS = ROOT / "bench" / "RESULTS.md"
PYTHON = sys.executable
# Samples whose inductor captures make the seed: a GPT-2 fine-tune (forward + backward graphs, a break, a
# recompile), an inductor perf hint, a dtype recompile, an item() break.
SEED_SAMPLES = ("gpt2_finetune", "perf_hint_inductor", "dtype_recompile", "item_metric")
SECTION_START = "<!-- ingest:start -->"
SECTION_END = "<!-- ingest:end -->"
GOAL_WALL_RATIO = 0.15  # issue 24: the report in under 0.15 of tlparse's wall time (it was a third before)
GOAL_HTML_RATIO = 1 / 3  # issue 16: the HTML page in at most a third of tlparse's wall time
GOAL_PEAK_MB = 64  # issue 24: a peak under 64 MB (it was 200 MB before)
_ENVELOPE = re.compile(rb"^[VIWEC]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ [^\]]*\] ")
GNU_TIME = "/usr/bin/time" if Path("/usr/bin/time").exists() else None  # for each child's own peak RSS
_META = frozenset({"rank", "frame_id", "frame_compile_id", "attempt", "has_payload", "stack", "compiled_autograd_id"})

# The floor: what a plain streaming pass costs (no doctor, no payloads).
PLAIN_PASS = """
import json, sys
records = 0
with open(sys.argv[1], "rb") as f:
    for line in f:
        if line[:1] == b"\\t":
            continue
        i = line.find(b"] ")
        if i > 0:
            json.loads(line[i + 2 :])
            records += 1
print(records)
"""

# Where the doctor's time goes: the stages of `doctor report`, timed in one child process, with its RSS after each.
PHASES = """
import json, resource, sys, time
from pathlib import Path
def rss():  # this process's own high-water mark (ru_maxrss starts at the parent's RSS at fork)
    try:
        status = open("/proc/self/status").read()
        return int(status.split("VmHWM:")[1].split()[0]) / 1024
    except (OSError, IndexError, ValueError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
out, t = {}, time.perf_counter()
from torchcompile_doctor.analysis import AnalysisContext, analyze
from torchcompile_doctor.events.load import load_artifacts
from torchcompile_doctor.renderers import render
out["import"] = (time.perf_counter() - t, rss())
path, t = Path(sys.argv[1]), time.perf_counter()
log = load_artifacts(path)
out["load"] = (time.perf_counter() - t, rss())
t = time.perf_counter()
report = analyze(log, AnalysisContext(target=str(path), root=str(Path.cwd()), offline=True))
out["analyze"] = (time.perf_counter() - t, rss())
t = time.perf_counter()
render(report, "json")
out["render"] = (time.perf_counter() - t, rss())
t = time.perf_counter()
page = render(report, "html")
out["render_html"] = (time.perf_counter() - t, rss())
out["html_bytes"] = (len(page.encode()), 0)
print(json.dumps(out))
"""


def phases(path: Path) -> dict[str, tuple[float, float]]:
    """Seconds and RSS (MB) after each stage of `doctor report` on `path`; {} when the child fails."""
    proc = subprocess.run([PYTHON, "-c", PHASES, str(path)], cwd=ROOT, env=base_env(), capture_output=True, text=True)
    try:
        return json.loads(proc.stdout)
    except ValueError:
        return {}


def describe_phases(found: dict[str, tuple[float, float]], size: int) -> str:
    if not found:
        return "(the stage timing failed)"
    (t_import, m_import), (t_load, m_load) = found["import"], found["load"]
    (t_analyze, m_analyze), (t_render, m_render) = found["analyze"], found["render"]
    (t_html, m_html), (html_bytes, _) = found.get("render_html", (0.0, 0.0)), found.get("html_bytes", (0, 0))
    return (
        f"imports {t_import:.2f} s ({m_import:.0f} MB), reading and parsing {t_load:.2f} s "
        f"({size / 1e6 / t_load:.0f} MB/s; RSS {m_load:.0f} MB after), analysis {t_analyze:.2f} s "
        f"({m_analyze:.0f} MB), JSON rendering {t_render:.2f} s ({m_render:.0f} MB), "
        f"HTML rendering {t_html:.2f} s ({m_html:.0f} MB; a {html_bytes / 1e6:.1f} MB page)"
    )


def doctor_cmd() -> list[str]:
    exe = Path(PYTHON).parent / "doctor"
    return [str(exe)] if exe.exists() else [PYTHON, "-m", "torchcompile_doctor"]


def tlparse_cmd(install: bool, log) -> list[str] | None:
    exe = Path(PYTHON).parent / "tlparse"
    if not exe.exists() and shutil.which("tlparse") is None and install:
        log("ingest: tlparse not found, pip-installing it into this environment (not a doctor dependency)")
        subprocess.run([PYTHON, "-m", "pip", "install", "-q", "tlparse"], check=False)
    if exe.exists():
        return [str(exe)]
    found = shutil.which("tlparse")
    return [found] if found else None


def base_env() -> dict[str, str]:
    env = dict(os.environ)
    for key in ("TORCH_LOGS", "TORCH_TRACE", "TORCH_COMPILE_DEBUG", "TORCHDYNAMO_VERBOSE"):
        env.pop(key, None)
    # an installed doctor imports from its bytecode: a shell's PYTHONDONTWRITEBYTECODE would time the compiling
    # of every module on each run instead
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


# --- seeds and the big trace -------------------------------------------------------------------


def seed_traces(log) -> list[Path]:
    """One trace file per seed sample, captured once and kept in bench/.data/seeds/."""
    traces = []
    for name in SEED_SAMPLES:
        dest = SEEDS / name
        found = sorted(CaptureFolder(dest).trace_dir.glob("*.log")) if dest.is_dir() else []
        if not found:
            log(f"ingest: capturing the seed trace of {name}.py (inductor, cold cache; once)")
            shutil.rmtree(dest, ignore_errors=True)
            dest.parent.mkdir(parents=True, exist_ok=True)
            argv = doctor_cmd() + ["explain", str(ROOT / "sample_models" / f"{name}.py"), "--backend", "inductor"]
            argv += ["--fresh-inductor-cache", "--artifacts", str(dest), "--format", "json", "-o", os.devnull]
            subprocess.run(argv, cwd=ROOT, env=base_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            found = sorted(CaptureFolder(dest).trace_dir.glob("*.log"))
            shutil.rmtree(CaptureFolder(dest).fresh_inductor_cache, ignore_errors=True)
        if not found:
            log(f"ingest: no trace captured for {name}.py; left out of the seed")
        traces += found
    return traces


@dataclass
class SeedRecord:
    prefix: bytes  # the glog envelope up to and including "] "
    meta: dict
    payload: bytes  # the tab-indented lines after the envelope, as written


def read_seed(path: Path) -> list[SeedRecord]:
    records: list[SeedRecord] = []
    payload: list[bytes] = []
    with path.open("rb") as stream:
        for line in stream:
            if line.startswith(b"\t"):
                payload.append(line)
                continue
            if records:
                records[-1].payload = b"".join(payload)
            payload = []
            match = _ENVELOPE.match(line)
            if match is None:
                continue
            records.append(SeedRecord(line[: match.end()], json.loads(line[match.end() :]), b""))
    if records:
        records[-1].payload = b"".join(payload)
    return records


@dataclass
class BigTrace:
    path: Path
    size: int
    copies: int
    records: int
    graph_break_records: int
    recompiles: int


def build_big_trace(seeds: list[Path], path: Path, min_bytes: int) -> BigTrace:
    """Repeat the seed records until the file has `min_bytes`; each copy of a seed gets new frame ids."""
    parts = [read_seed(seed) for seed in seeds]
    written = copies = records = breaks = recompiles = 0
    frame_offset = 0
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as out:
        while written < min_bytes:
            for part in parts:
                top = frame_offset
                for record in part:
                    kind = next((k for k in record.meta if k not in _META), "")
                    if kind == "str" and copies:
                        continue  # an interned string is written once per log
                    meta = dict(record.meta)
                    if isinstance(meta.get("frame_id"), int):
                        meta["frame_id"] += frame_offset
                        top = max(top, meta["frame_id"] + 1)
                    chunk = record.prefix + json.dumps(meta).encode() + b"\n" + record.payload
                    out.write(chunk)
                    written += len(chunk)
                    records += 1
                    name = meta.get("artifact", {}).get("name") if kind == "artifact" else None
                    breaks += name == "dynamo_graph_break_reason" and not record.payload.startswith(b"\tWON'T")
                    recompiles += name == "recompile_reasons"
                frame_offset = top
            copies += 1
    return BigTrace(path, written, copies, records, breaks, recompiles)


# --- timing ------------------------------------------------------------------------------------


@dataclass
class Tool:
    key: str
    label: str
    argv: list[str]
    before: object = None  # a callable run before each measured run (e.g. clear tlparse's output)
    times: list[float] = field(default_factory=list)
    peaks_mb: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)  # user + system seconds of each measured run
    failures: list[str] = field(default_factory=list)
    stdout: bytes = b""
    last_cpu: float = float("nan")

    def run_once(self) -> tuple[float, float]:
        """Wall seconds and peak RSS (MB) of one run. The peak comes from GNU time when there is one: a
        child's ru_maxrss starts at its parent's RSS at fork (Linux keeps it across exec), so a child of
        this (larger) process would report at least this process's size."""
        if self.before:
            self.before()
        out, rss_file = tempfile.TemporaryFile(), tempfile.NamedTemporaryFile(mode="r", suffix=".rss")
        argv = ([GNU_TIME, "-f", "%M", "-o", rss_file.name] if GNU_TIME else []) + self.argv
        started = time.perf_counter()
        proc = subprocess.Popen(
            argv, cwd=ROOT, env=base_env(), stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.DEVNULL
        )
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - started
        # the CPU the command used (GNU time's and its child's: a process's usage counts its waited-for children):
        # on a shared machine wall time says as much about the others' load as about the command
        self.last_cpu = usage.ru_utime + usage.ru_stime
        proc.returncode = os.waitstatus_to_exitcode(status)
        peak_kib = usage.ru_maxrss  # KiB on Linux; an upper bound without GNU time
        if GNU_TIME:
            lines = rss_file.read().split()
            peak_kib = int(lines[-1]) if lines and lines[-1].isdigit() else float("nan")
        rss_file.close()
        out.seek(0)
        self.stdout = out.read()
        out.close()
        if proc.returncode != 0:
            self.failures.append(f"exit {proc.returncode}")
        return elapsed, peak_kib / 1024

    @property
    def wall(self) -> float:
        return statistics.median(self.times) if self.times else float("nan")

    @property
    def cpu(self) -> float:
        return statistics.median(self.cpus) if self.cpus else float("nan")

    @property
    def peak(self) -> float:
        return max(self.peaks_mb) if self.peaks_mb else float("nan")


def run_interleaved(tools: list[Tool], repeat: int, log) -> None:
    for r in range(repeat + 1):
        for tool in tools:
            wall, peak = tool.run_once()
            if r:
                tool.times.append(wall)
                tool.peaks_mb.append(peak)
                tool.cpus.append(tool.last_cpu)
            log(
                f"  [{'warm-up' if r == 0 else f'{r}/{repeat}'}] {tool.label}: {wall:.2f} s, "
                f"{tool.last_cpu:.2f} s CPU, peak {peak:.0f} MB"
            )


def check_report(stdout: bytes, big: BigTrace) -> str:
    """The doctor's report of the big trace must account for every record, break and recompile."""
    try:
        report = json.loads(stdout)
        health, summary = report["log_health"], report["summary"]
    except (ValueError, KeyError, TypeError):
        return "the report is not JSON"
    problems = []
    if health["records"] != big.records:
        problems.append(f"{health['records']} records read of {big.records}")
    for key in ("bad_lines", "bad_json", "md5_mismatches", "parse_errors"):
        if health[key]:
            problems.append(f"{key} {health[key]}")
    if summary["graph_break_records"] != big.graph_break_records:
        problems.append(f"{summary['graph_break_records']} graph-break records of {big.graph_break_records}")
    if summary["recompiles"] != big.recompiles:
        problems.append(f"{summary['recompiles']} recompiles of {big.recompiles}")
    return "; ".join(problems) or "ok"


def fmt_mb(size: int) -> str:
    return f"{size / 1e6:.0f} MB"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mb", type=int, default=120, help="size of the big trace (default 120 MB)")
    parser.add_argument("--repeat", type=int, default=3, help="measured runs per tool (default 3)")
    parser.add_argument("--gb", type=float, default=0, help="also one doctor run on a trace of this many GB")
    parser.add_argument("--write", action="store_true", help=f"update the ingest section of {RESULTS.name}")
    parser.add_argument("--no-install", action="store_true", help="do not pip-install tlparse when missing")
    parser.add_argument("--keep-big", action="store_true", help="keep the big trace in bench/.data/ for reuse")
    parser.add_argument("-q", "--quiet", action="store_true", help="no per-run progress on stderr")
    opts = parser.parse_args()

    def log(message: str) -> None:
        if not opts.quiet:
            print(message, file=sys.stderr, flush=True)

    started_all = time.perf_counter()
    seeds = seed_traces(log)
    if not seeds:
        print("ingest: no seed trace could be captured", file=sys.stderr)
        return 2
    big_path = DATA / f"big_trace_{opts.size_mb}MB.log"
    big = build_big_trace(seeds, big_path, opts.size_mb * 1_000_000)
    log(f"ingest: {big_path.relative_to(ROOT)}: {fmt_mb(big.size)}, {big.copies} copies of {len(seeds)} seed(s)")

    out_dir = Path(tempfile.mkdtemp(prefix="tcd-ingest-tlparse-"))
    tools = [
        Tool("doctor", "doctor report BIG --format json", doctor_cmd() + ["report", str(big_path), "--format", "json"]),
        Tool(
            "doctor-html",
            "doctor report BIG --format html",
            doctor_cmd() + ["report", str(big_path), "--format", "html"],
        ),
        Tool("plain", "plain Python pass (envelopes only)", [PYTHON, "-c", PLAIN_PASS, str(big_path)]),
    ]
    tlparse = tlparse_cmd(not opts.no_install, log)
    if tlparse is None:
        log("ingest: tlparse is not installed (pip install tlparse); its rows are skipped")
    else:
        tools.insert(
            1,
            Tool(
                "tlparse",
                "tlparse BIG --overwrite -o OUT",
                tlparse + [str(big_path), "--overwrite", "-o", str(out_dir / "out"), "--no-browser"],
                before=lambda: shutil.rmtree(out_dir / "out", ignore_errors=True),
            ),
        )
    try:
        log(f"ingest: {opts.repeat} measured run(s) + 1 warm-up of {len(tools)} tools, interleaved")
        run_interleaved(tools, opts.repeat, log)
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)
    by_key = {t.key: t for t in tools}
    doctor = by_key["doctor"]
    verdict = check_report(doctor.stdout, big)
    big_phases = phases(big_path)

    huge = None
    if opts.gb:
        huge_path = Path(tempfile.gettempdir()) / f"tcd-ingest-{opts.gb:g}GB.log"
        try:
            log(f"ingest: building a {opts.gb:g} GB trace at {huge_path}")
            huge = build_big_trace(seeds, huge_path, int(opts.gb * 1e9))
            argv = doctor_cmd() + ["report", str(huge_path), "--format", "json"]
            tool = Tool("huge", "doctor report HUGE --format json", argv)
            wall, peak = tool.run_once()
            huge_verdict = check_report(tool.stdout, huge)
            log(f"  {tool.label}: {wall:.1f} s, peak {peak:.0f} MB, {huge_verdict}")
            huge = (huge, wall, peak, huge_verdict, phases(huge_path))
        finally:
            huge_path.unlink(missing_ok=True)
    if not opts.keep_big:
        big_path.unlink(missing_ok=True)
    total_s = time.perf_counter() - started_all

    rows = [
        "| Tool | Command | Median wall (s) | Min-max wall (s) | MB/s | Peak RSS (MB) | n |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for tool in tools:
        bad = f" (failed: {', '.join(sorted(set(tool.failures)))})" if tool.failures else ""
        spread = f"{min(tool.times):.2f}-{max(tool.times):.2f}" if tool.times else "-"
        rows.append(
            f"| {tool.key} | `{tool.label}`{bad} | {tool.wall:.2f} | {spread} | {big.size / 1e6 / tool.wall:.0f} "
            f"| {tool.peak:.0f} | {len(tool.times)} |"
        )
    notes = [f"- The doctor's report of the big trace: {verdict} (every record, graph-break record and recompile)."]
    if "tlparse" in by_key:
        ratio = doctor.wall / by_key["tlparse"].wall
        notes.append(
            f"- doctor/tlparse wall time = {ratio:.2f} (goal <= {GOAL_WALL_RATIO:.2f}: "
            f"{'met' if ratio <= GOAL_WALL_RATIO else '**not met**'}); tlparse writes an HTML report per compile, "
            "the doctor one JSON report."
        )
    if "tlparse" in by_key and "doctor-html" in by_key:
        ratio = by_key["doctor-html"].wall / by_key["tlparse"].wall
        notes.append(
            f"- doctor (HTML page)/tlparse wall time = {ratio:.2f} (goal <= {GOAL_HTML_RATIO:.2f}: "
            f"{'met' if ratio <= GOAL_HTML_RATIO else '**not met**'}): the whole `doctor report --format html`, "
            "one self-contained page, against tlparse's HTML."
        )
    notes.append(
        f"- doctor peak RSS {doctor.peak:.0f} MB (goal < {GOAL_PEAK_MB} MB: "
        f"{'met' if doctor.peak < GOAL_PEAK_MB else '**not met**'}); CLI start-up alone is part of both figures."
    )
    where = describe_phases(big_phases, big.size)
    notes.append(f"- Where the doctor's time goes ({fmt_mb(big.size)}, stage by stage in one process): {where}.")
    if huge is not None:
        h, wall, peak, h_verdict, h_phases = huge
        notes.append(
            f"- {fmt_mb(h.size)} trace ({h.copies} copies, {h.records} records): doctor {wall:.1f} s "
            f"({h.size / 1e6 / wall:.0f} MB/s), peak RSS {peak:.0f} MB against {doctor.peak:.0f} MB at "
            f"{fmt_mb(big.size)}; report {h_verdict}. Stages: {describe_phases(h_phases, h.size)}."
        )
        if big_phases and h_phases:
            grown = [found["load"][1] - found["import"][1] for found in (big_phases, h_phases)]
            notes.append(
                f"- Memory as the log grows {h.size / big.size:.1f}x: reading and parsing adds {grown[0]:.0f} MB "
                f"at {fmt_mb(big.size)} and {grown[1]:.0f} MB at {fmt_mb(h.size)}: the events kept (one per compile, "
                "graph break, recompile, guard tree), not the bytes read; analysis and the report grow with the "
                f"number of compiles ({h.records // max(big.records, 1)}x here)."
            )
    table, interpretation = "\n".join(rows), "\n".join(notes)
    print(table)
    print()
    print(interpretation)
    log(f"ingest: {total_s:.0f} s in all")

    if opts.write:
        write_section(big, seeds, opts, table, interpretation, total_s)
    return 1 if any(t.failures for t in tools) or verdict != "ok" else 0


def write_section(big: BigTrace, seeds: list[Path], opts, table: str, interpretation: str, total_s: float) -> None:
    date = _dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 0
    load = os.getloadavg()[0]
    seed_names = ", ".join(f"{p.parent.parent.name}.py ({p.stat().st_size / 1e6:.1f} MB)" for p in seeds)
    argv = " ".join(["bench/ingest.py", *sys.argv[1:]])
    section = f"""{SECTION_START}
## Ingest: a {fmt_mb(big.size)} trace, doctor vs tlparse

Produced by `{Path(PYTHON).relative_to(ROOT) if Path(PYTHON).is_relative_to(ROOT) else PYTHON} {argv}` on
{date} ({cores} usable cores, load average {load:.2f} at the end; {total_s:.0f} s in all).

The trace: real inductor captures (cold cache) of {seed_names}, repeated {big.copies} times with the frame
ids of each copy moved past the previous copy's: {big.records} records, {big.graph_break_records}
graph-break records, {big.recompiles} recompiles. Wall time is the median of {opts.repeat} interleaved runs
after one dropped warm-up (the file is in the page cache); peak RSS is each process's own high-water mark
(GNU time's `%M`: on Linux a child's `ru_maxrss` starts at its parent's RSS), the largest of the runs;
MB/s is the file size over the median wall time. stdout of every tool is captured.
The copies repeat the seeds' guard lines, which the guard-tree parser shares (as it does across the cache
entries of a recompiled frame), so a log whose gigabyte is all distinct guards would hold more than the
memory figures here; the reader itself holds one 1 MiB block and one wanted payload at a time.

{table}

{interpretation}
{SECTION_END}"""
    text = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else "# Benchmark results\n"
    start, end = text.find(SECTION_START), text.find(SECTION_END)
    if start != -1 and end != -1:
        text = text[:start] + section + text[end + len(SECTION_END) :]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    RESULTS.write_text(text, encoding="utf-8")
    print(f"ingest: wrote the ingest section of {RESULTS.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
