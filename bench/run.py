"""Benchmark: what does `doctor explain` cost on top of running the script yourself?

Run by `make bench` (`.venv/bin/python bench/run.py`). In one run it measures, as medians over N
repetitions (the first, warm-up run of every command is dropped):

1. `doctor explain S --format json --output /dev/null` vs plain `python S` (same python, the backend
   the script asks for) on a small sample and on the GPT-2 sample, with the ratio doctor/plain
   (goal: <= 1.10x), and where the difference goes: plain python with TORCH_TRACE set (the trace
   alone), the bootstrap's import of the doctor package, and the parent's analysis (`doctor report`
   on a kept --artifacts dir).
2. Time-to-report of `doctor explain S --backend eager` vs `doctor explain S` (inductor, the
   script's default) on a sample compiled with the default backend, warm inductor cache; plus one
   cold-cache run (`--fresh-inductor-cache`), what a first run costs.
3. `doctor --help` and `python -c "import torchcompile_doctor.cli"` wall time, and whether importing
   the CLI imports torch (it must not).

Options: --repeat N (default 5), --quick (2 repetitions), --write (update bench/RESULTS.md),
--no-cold (skip the cold-cache inductor run), --startup-only (section 3 alone, printed, nothing written).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import importlib.metadata
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_models"
SMALL = SAMPLES / "helper_two_callsites.py"
GPT2 = SAMPLES / "gpt2_finetune.py"
INDUCTOR = SAMPLES / "perf_hint_inductor.py"  # torch.compile(model): the default inductor backend
RESULTS = ROOT / "bench" / "RESULTS.md"
PYTHON = sys.executable
GOAL_RATIO = 1.10
FAST_MIN_REPEAT = 10  # sub-second commands get at least this many repetitions
COMMAND_TIMEOUT_S = 600


def doctor_cmd() -> list[str]:
    exe = Path(PYTHON).parent / "doctor"
    return [str(exe)] if exe.exists() else [PYTHON, "-m", "torchcompile_doctor"]


def base_env() -> dict[str, str]:
    env = dict(os.environ)
    for key in ("TORCH_LOGS", "TORCH_TRACE", "TORCH_COMPILE_DEBUG", "TORCHDYNAMO_VERBOSE"):
        env.pop(key, None)
    # an installed doctor imports from its bytecode: a shell's PYTHONDONTWRITEBYTECODE would time the compiling
    # of every module on each run instead
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


@dataclass
class Command:
    key: str
    label: str
    argv: list[str]
    env_extra: dict[str, str] = field(default_factory=dict)
    fresh_dir_env: str | None = None  # set this env var to a fresh temp dir per run (removed after)
    warmup_argv: list[str] | None = None  # the (dropped) warm-up run may differ, e.g. keep its capture
    repeat: int = 5
    times: list[float] = field(default_factory=list)  # measured runs only (warm-up dropped)
    cpu: list[float] = field(default_factory=list)  # user+sys of the command and its children, same runs
    warmup: float | None = None
    failures: list[str] = field(default_factory=list)

    def run_once(self, argv: list[str] | None = None) -> tuple[float, float]:
        env = base_env()
        env.update(self.env_extra)
        tmp = None
        if self.fresh_dir_env:
            tmp = tempfile.mkdtemp(prefix="tcd-bench-")
            env[self.fresh_dir_env] = tmp
        try:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            proc = subprocess.run(
                argv or self.argv,
                cwd=ROOT,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=COMMAND_TIMEOUT_S,
            )
            elapsed = time.perf_counter() - started
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
        finally:
            if tmp:
                shutil.rmtree(tmp, ignore_errors=True)
        if proc.returncode != 0:
            self.failures.append(f"exit {proc.returncode}")
        cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        return elapsed, cpu

    def record(self, measured: tuple[float, float]) -> None:
        self.times.append(measured[0])
        self.cpu.append(measured[1])

    @property
    def median(self) -> float:
        return statistics.median(self.times) if self.times else float("nan")

    @property
    def cpu_median(self) -> float:
        return statistics.median(self.cpu) if self.cpu else float("nan")

    def spread(self) -> str:
        if not self.times:
            return "-"
        return f"{min(self.times):.2f}-{max(self.times):.2f}"


def run_interleaved(commands: list[Command], log) -> None:
    """Round-robin: round 0 is the warm-up of every command, then each measured round runs every
    command still owed a repetition, so slow drift of the machine hits all of them alike."""
    rounds = max(c.repeat for c in commands)
    for r in range(rounds + 1):
        for c in commands:
            if r > c.repeat:
                continue
            wall, cpu = c.run_once(c.warmup_argv if r == 0 else None)
            if r == 0:
                c.warmup = wall
            else:
                c.record((wall, cpu))
            log(f"  [{'warm-up' if r == 0 else f'{r}/{c.repeat}'}] {c.label}: {wall:.2f} s (cpu {cpu:.2f} s)")


def rel(path: Path) -> str:
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


def machine() -> dict[str, str]:
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        model = platform.processor() or "unknown"
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count() or 0

    def version(dist: str) -> str:
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            return "not installed"

    return {
        "cpu": model,
        "cores": f"{usable} usable ({os.cpu_count()} logical)",
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "torch": version("torch"),
        "transformers": version("transformers"),
        "doctor": version("torchcompile-doctor"),
    }


def read_report(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def finding_count(report: dict) -> str:
    for key in ("findings", "issues", "items"):
        if isinstance(report.get(key), list):
            return str(len(report[key]))
    return "?"


def torch_imported_by_cli() -> str:
    code = "import sys, torchcompile_doctor.cli; print('torch' in sys.modules)"
    proc = subprocess.run([PYTHON, "-c", code], cwd=ROOT, env=base_env(), capture_output=True, text=True)
    return proc.stdout.strip() or f"error: {proc.stderr.strip().splitlines()[-1:]}"


def kept_ingest_section() -> str:
    """bench/ingest.py's section of RESULTS.md, carried over when this script rewrites the file."""
    try:
        text = RESULTS.read_text(encoding="utf-8")
    except OSError:
        return ""
    start, end = text.find("<!-- ingest:start -->"), text.find("<!-- ingest:end -->")
    if start == -1 or end == -1:
        return ""
    return "\n" + text[start : end + len("<!-- ingest:end -->")] + "\n"


def fmt_s(value: float) -> str:
    if value != value:  # nan
        return "-"
    return f"{value:.3f}" if value < 1 else f"{value:.2f}"


def startup_commands(doctor: list[str], repeat: int) -> dict[str, Command]:
    """Section 3: the CLI's start-up, the CLI's import, the bootstrap's import of the package, the interpreter."""
    return {
        "help": Command("help", "doctor --help", doctor + ["--help"], repeat=repeat),
        "import_cli": Command(
            "import_cli",
            'python -c "import torchcompile_doctor.cli"',
            [PYTHON, "-c", "import torchcompile_doctor.cli"],
            repeat=repeat,
        ),
        "python": Command("python", 'python -c "pass"', [PYTHON, "-c", "pass"], repeat=repeat),
        "import_boot": Command(
            "import_boot",
            'python -c "import torchcompile_doctor.capture._bootstrap"',
            [PYTHON, "-c", "import torchcompile_doctor.capture._bootstrap"],
            repeat=repeat,
        ),
    }


def startup_only(doctor: list[str], repeat: int, log) -> int:
    """`--startup-only`: section 3 alone, printed (the rest of RESULTS.md is left as it is)."""
    fast = startup_commands(doctor, repeat)
    load_before = os.getloadavg()[0]
    log(f"bench: {repeat} measured repetition(s) + 1 warm-up of the start-up commands")
    run_interleaved(list(fast.values()), log)
    print("| Group | Sample | Command | Median wall (s) | Min-max wall (s) | Median CPU (s) | n | Ratio / note |")
    print("|---|---|---|---:|---:|---:|---:|---|")
    for c in fast.values():
        print(
            f"| 3. start-up | CLI | `{c.label}` | {fmt_s(c.median)} | {c.spread()} | {fmt_s(c.cpu_median)} "
            f"| {len(c.times)} | |"
        )
    print(
        f"\ntorch in sys.modules after importing the CLI: {torch_imported_by_cli()}; load average "
        f"{load_before:.2f} before, {os.getloadavg()[0]:.2f} after, on {os.cpu_count()} logical CPUs"
    )
    return 1 if any(c.failures for c in fast.values()) else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="measured repetitions per command (default 5)")
    parser.add_argument("--quick", action="store_true", help="2 repetitions")
    parser.add_argument("--write", action="store_true", help=f"update {rel(RESULTS)}")
    parser.add_argument("--no-cold", action="store_true", help="skip the cold-cache inductor run")
    parser.add_argument("-q", "--quiet", action="store_true", help="no per-run progress on stderr")
    parser.add_argument(
        "--startup-only", action="store_true", help="only section 3 (start-up), printed; RESULTS.md is not written"
    )
    opts = parser.parse_args()
    n = 2 if opts.quick else max(1, opts.repeat)
    n_fast = max(n, FAST_MIN_REPEAT)

    def log(message: str) -> None:
        if not opts.quiet:
            print(message, file=sys.stderr, flush=True)

    if opts.startup_only:
        return startup_only(doctor_cmd(), n_fast, log)
    for script in (SMALL, GPT2, INDUCTOR):
        if not script.exists():
            print(f"bench: missing sample {rel(script)}", file=sys.stderr)
            return 2

    doctor = doctor_cmd()
    load_before = os.getloadavg()[0]
    started_all = time.perf_counter()
    scratch = Path(tempfile.mkdtemp(prefix="tcd-bench-scratch-"))
    try:
        # 1. doctor vs plain python (+ the trace alone), small and GPT-2.
        overhead: dict[str, dict[str, Command]] = {}
        heavy: list[Command] = []
        for name, script in (("small", SMALL), ("gpt2", GPT2)):
            (scratch / name).mkdir()
            explain = doctor + ["explain", str(script), "--format", "json"]
            cmds = {
                "plain": Command(f"{name}.plain", f"python {script.name}", [PYTHON, str(script)], repeat=n),
                "trace": Command(
                    f"{name}.trace",
                    f"TORCH_TRACE=tmp python {script.name}",
                    [PYTHON, str(script)],
                    fresh_dir_env="TORCH_TRACE",
                    repeat=n,
                ),
                "doctor": Command(
                    f"{name}.doctor",
                    f"doctor explain {script.name} --format json -o /dev/null",
                    explain + ["--output", "/dev/null"],
                    repeat=n,
                    # the dropped warm-up keeps its report and capture, for `doctor report` below
                    warmup_argv=explain
                    + [
                        "--output",
                        str(scratch / name / "report.json"),
                        "--artifacts",
                        str(scratch / name / "artifacts"),
                    ],
                ),
            }
            overhead[name] = cmds
            heavy += cmds.values()
        # 2. time to report: inductor (default backend, warm cache) vs --backend eager.
        ind = {
            "inductor": Command(
                "ind.inductor",
                f"doctor explain {INDUCTOR.name}",
                doctor + ["explain", str(INDUCTOR), "--format", "json", "--output", "/dev/null"],
                repeat=n,
            ),
            "eager": Command(
                "ind.eager",
                f"doctor explain {INDUCTOR.name} --backend eager",
                doctor + ["explain", str(INDUCTOR), "--backend", "eager", "--format", "json", "--output", "/dev/null"],
                repeat=n,
            ),
        }
        heavy += ind.values()
        log(f"bench: {n} measured repetition(s) + 1 warm-up of {len(heavy)} heavy commands")
        run_interleaved(heavy, log)

        cold = None
        if not opts.no_cold:
            cold = Command(
                "ind.cold",
                f"doctor explain {INDUCTOR.name} --fresh-inductor-cache",
                ind["inductor"].argv + ["--fresh-inductor-cache"],
                repeat=1,
            )
            log("bench: one cold-cache inductor run (--fresh-inductor-cache)")
            cold.record(cold.run_once())
            log(f"  {cold.label}: {cold.times[0]:.2f} s (cpu {cold.cpu[0]:.2f} s)")

        # Kept captures: the parent's own work (load + analyze + render) via `doctor report`.
        kept: dict[str, Command] = {}
        reports: dict[str, dict] = {}
        for name, script in (("small", SMALL), ("gpt2", GPT2)):
            dest = scratch / name
            reports[name] = read_report(dest / "report.json")
            kept[name] = Command(
                f"{name}.report",
                f"doctor report <artifacts of {script.name}> --format json",
                doctor + ["report", str(dest / "artifacts"), "--format", "json", "--output", "/dev/null"],
                repeat=n_fast,
            )
        # 3. CLI startup, and the bootstrap's own import of the doctor package (no torch).
        fast = startup_commands(doctor, n_fast)
        log(f"bench: {n_fast} measured repetition(s) + 1 warm-up of the fast commands")
        run_interleaved(list(kept.values()) + list(fast.values()), log)
        torch_loaded = torch_imported_by_cli()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    total_s = time.perf_counter() - started_all

    # ---- the table -------------------------------------------------------------------------------
    rows: list[tuple[str, str, Command, str]] = []
    titles = {
        name: f"{label} ({script.name}, {reports[name].get('backend', '?')})"
        for name, label, script in (("small", "small", SMALL), ("gpt2", "GPT-2", GPT2))
    }

    def ratio(c: Command, ref: Command) -> str:
        return f"{c.median / ref.median:.2f}x wall, {c.cpu_median / ref.cpu_median:.2f}x CPU"

    for name, cmds in overhead.items():
        plain = cmds["plain"]
        rows.append(("1. overhead", titles[name], plain, "reference"))
        rows.append(("1. overhead", titles[name], cmds["trace"], f"{ratio(cmds['trace'], plain)} (trace alone)"))
        rows.append(("1. overhead", titles[name], cmds["doctor"], f"**{ratio(cmds['doctor'], plain)}** vs plain"))
        rows.append(("1. overhead", titles[name], kept[name], "parent: CLI start-up + load/analyze/render"))
    e, i = ind["eager"], ind["inductor"]
    rows.append(("2. time to report", f"inductor ({INDUCTOR.name})", i, "reference (warm inductor cache)"))
    rows.append(
        (
            "2. time to report",
            f"inductor ({INDUCTOR.name})",
            e,
            f"{ratio(e, i)}: report {i.median / e.median:.1f}x sooner",
        )
    )
    if cold is not None:
        rows.append(
            (
                "2. time to report",
                f"inductor ({INDUCTOR.name})",
                cold,
                f"first run: {cold.median / e.median:.1f}x the eager time (n=1)",
            )
        )
    for key in ("help", "import_cli", "import_boot", "python"):
        note = {
            "import_cli": f"torch in sys.modules after import: {torch_loaded}",
            "import_boot": "the bootstrap's import of the package (no torch)",
            "python": "interpreter start-up, for reference",
        }.get(key, "")
        rows.append(("3. start-up", "CLI", fast[key], note))

    lines = [
        "| Group | Sample | Command | Median wall (s) | Min-max wall (s) | Median CPU (s) | n | Ratio / note |",
        "|---|---|---|---:|---:|---:|---:|---|",
    ]
    for group, sample, c, note in rows:
        bad = f" (failed: {', '.join(sorted(set(c.failures)))})" if c.failures else ""
        lines.append(
            f"| {group} | {sample} | `{c.label}` | {fmt_s(c.median)} | {c.spread()} "
            f"| {fmt_s(c.cpu_median)} | {len(c.times)} | {note}{bad} |"
        )
    table = "\n".join(lines)

    # ---- where the doctor's time goes, and an interpretation ------------------------------------
    def verdict(r: float) -> str:
        return f"{r:.2f}x ({'within' if r <= GOAL_RATIO else '**over**'} {GOAL_RATIO:.2f}x)"

    boot_wall = max(0.0, fast["import_boot"].median - fast["python"].median)
    boot_cpu = max(0.0, fast["import_boot"].cpu_median - fast["python"].cpu_median)
    notes = []
    for name, cmds in overhead.items():
        plain, trace, doc, parent = cmds["plain"], cmds["trace"], cmds["doctor"], kept[name]
        parts = []
        for get, boot in ((lambda c: c.cpu_median, boot_cpu), (lambda c: c.median, boot_wall)):
            extra = get(doc) - get(plain)
            rest = get(doc) - get(trace) - get(parent) - boot
            parts.append(
                f"{get(doc):.2f} s vs {get(plain):.2f} s = {verdict(get(doc) / get(plain))}, {extra:+.2f} s: "
                f"TORCH_TRACE alone {get(trace) - get(plain):+.2f} s, the parent (CLI start-up + "
                f"load/analyze/render, timed as `doctor report` on a kept capture) {get(parent):.2f} s, the "
                f"bootstrap's import of the package {boot * 1000:.0f} ms, the rest (hooks, runpy, noise) "
                f"{rest:+.2f} s"
            )
        notes.append(
            f"- {titles[name]}, doctor vs plain, CPU time: {parts[0]}. Wall time: {parts[1]}. "
            f"The report had {finding_count(reports.get(name, {}))} finding(s)."
        )

    def span(values: list[float]) -> str:
        lo, hi = round(min(values), 2) + 0.0, round(max(values), 2) + 0.0  # no "-0.00"
        if hi == lo:
            return f"{lo:.2f} s"
        return f"{lo:.2f}-{hi:.2f} s" if lo >= 0 else f"{lo:+.2f} to {hi:+.2f} s"

    fixed = [cmds["doctor"].median - cmds["plain"].median for cmds in overhead.values()]
    traced = [cmds["trace"].median - cmds["plain"].median for cmds in overhead.values()]
    startup = fast["help"].median
    parent = [kept[k].median for k in overhead]
    summary = (
        "- Summary: doctor/plain wall = "
        + ", ".join(f"{overhead[k]['doctor'].median / overhead[k]['plain'].median:.2f}x ({k})" for k in overhead)
        + f" against the {GOAL_RATIO:.2f}x goal. The doctor adds {span(fixed)} per run; the parent process "
        f"accounts for {span(parent)} of it (CLI start-up {startup:.2f} s as in `doctor --help`, the rest "
        f"load/analyze/render), TORCH_TRACE for {span(traced)}."
    )
    if max(fixed) > 0.05:
        summary += (
            f" As the added time is about constant, the ratio falls as the script gets longer: a script "
            f"shorter than about {max(fixed) / (GOAL_RATIO - 1):.0f} s would exceed {GOAL_RATIO:.2f}x."
        )
    notes.insert(0, summary)
    cold_txt = (
        f" With a cold inductor cache (`--fresh-inductor-cache`, like a first run) it takes "
        f"{cold.median:.2f} s, {cold.median / e.median:.1f}x the eager run."
        if cold is not None
        else ""
    )
    notes.append(
        f"- Time to report on {INDUCTOR.name}: `--backend eager` {e.median:.2f} s vs the script's inductor "
        f"{i.median:.2f} s (warm FX-graph cache): {i.median / e.median:.1f}x sooner, {i.median - e.median:.2f} s "
        f"saved.{cold_txt}"
    )
    notes.append(
        f"- `doctor --help` {fast['help'].median * 1000:.0f} ms; importing the CLI "
        f"{fast['import_cli'].median * 1000:.0f} ms (interpreter alone {fast['python'].median * 1000:.0f} ms); "
        f"torch in sys.modules after importing the CLI: {torch_loaded}."
    )
    spreads = [
        (max(c.times) - min(c.times)) / c.median for cs in overhead.values() for c in cs.values() if len(c.times) > 1
    ]
    load_after = os.getloadavg()[0]
    if spreads:
        busy = max(spreads) > 0.25 or max(load_before, load_after) > 1.0
        notes.append(
            f"- Noise: the widest min-max wall spread among the section-1 commands is {max(spreads) * 100:.0f}% "
            f"of its median (load average {load_before:.2f} before, {load_after:.2f} after, on "
            f"{machine()['cores']}); differences smaller than that are not resolved by this run. CPU time "
            "(user+sys of the command and its children) is less sensitive to other load than wall time."
            + (
                " **Other processes shared the machine during this run: rerun on an idle machine before "
                "trusting the wall-time ratios.**"
                if busy
                else ""
            )
        )
    interpretation = "\n".join(notes)

    print(table)
    print()
    print(interpretation)
    print(f"\nbench: {total_s:.0f} s in all", file=sys.stderr)

    if opts.write:
        m = machine()
        date = _dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
        argv = " ".join(["bench/run.py", *sys.argv[1:]])
        text = f"""# Benchmark results

Produced by `{rel(Path(PYTHON))} {argv}` (`make bench` runs it without `--write`) on {date}.

## Machine

- CPU: {m["cpu"]}, {m["cores"]}
- OS: {m["os"]}
- Python {m["python"]}, torch {m["torch"]}, transformers {m["transformers"]}, torchcompile-doctor {m["doctor"]}

## Method

Wall time of each command (`time.perf_counter()` around `subprocess.run`, stdout/stderr to
/dev/null, `TORCH_LOGS`/`TORCH_TRACE` unset, cwd the repository root), median of {n} measured runs
after one dropped warm-up run (sub-second commands: {n_fast} runs). "CPU" is the user+sys time of the
command and every process it waited for (`getrusage(RUSAGE_CHILDREN)` deltas), median of the same
runs. The heavy commands run round-robin, so drift of the machine hits each alike. "plain" is the
same interpreter running the script as written (its own backend, named in the Sample column as
the doctor's report gives it); the doctor's report goes to /dev/null as JSON (its dropped warm-up
run keeps its capture, which `doctor report` then re-analyzes to time the parent's own work).
Section 2 uses a warm inductor FX-graph cache except for the single cold-cache run
(`--fresh-inductor-cache`: an empty inductor cache, as on a first run). The whole benchmark took {total_s:.0f} s.

## Results

{table}

## Interpretation

{interpretation}
"""
        text += kept_ingest_section()
        RESULTS.write_text(text, encoding="utf-8")
        print(f"bench: wrote {rel(RESULTS)}", file=sys.stderr)
    everything = heavy + list(kept.values()) + list(fast.values()) + ([cold] if cold else [])
    failed = [c for c in everything if c.failures]
    for c in failed:  # one more run, its stderr kept this time, to say why
        proc = subprocess.run(
            c.argv,
            cwd=ROOT,
            env=base_env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            timeout=COMMAND_TIMEOUT_S,
        )
        tail = "\n    ".join(proc.stderr.strip().splitlines()[-8:])
        print(
            f"bench: `{c.label}` failed {len(c.failures)} time(s) ({', '.join(sorted(set(c.failures)))}); "
            f"re-run: exit {proc.returncode}\n    {tail}",
            file=sys.stderr,
        )
    return 1 if failed else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
