"""The one tool that makes and keeps the captures checked in under tests/ (run it with the venv's python):

    python tests/support/recording.py record tests/rules/TCD104/item.py [--into DIR] [--options "--try-fixes"]
                                             [--torch-logs]
        Runs `doctor explain item.py --format json --artifacts TMP` in the case's folder (another command or
        more options from the case's `# capture: doctor ...` line, or --options), strips TMP into `item.capture/`
        (or DIR; a --try-fixes run keeps its experiments), writes `recording.json` there (the command, the
        versions, the date), and checks that re-reading the stripped capture finds what the live run found.
        --torch-logs also runs the program plainly under `TORCH_LOGS=graph_breaks,recompiles` and keeps its
        stderr beside the capture (`item.torch_logs.txt`): torch's own account of the run, the truth a test
        compares the capture's reading with; and what it printed (`item.stdout.txt`).
    python tests/support/recording.py strip SRC DEST
        Copies a kept capture, leaving out of its TORCH_TRACE logs what no reader of the doctor uses (kinds it
        reads past, timeline spans it drops, config snapshots); checks the re-read report is unchanged.
    python tests/support/recording.py snapshot PATH [--files-from OLD=NEW ...]
        (Re)writes the source snapshot of a capture (or of a folder of bare trace logs) with the analysis as it
        is now: re-reads PATH, reading each file it names at its recorded path, or under NEW where that path
        starts with OLD (a capture made in another checkout or virtual environment), and keeps what was read.
    python tests/support/recording.py check
        Re-reads every checked-in capture with the disk made unreadable: each must read as it does with it.
    python tests/support/recording.py move SRC DEST OLD NEW
        Copies a capture as if it had been made with its files under NEW instead of OLD (md5s written again).

Nothing here runs in the test suite but `check` (tests/analysis/test_captures_complete.py does the same)."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

if __package__ in (None, ""):  # run as a script: the shared test code is found from tests/
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from support.captures import capture_dirs, disk_answered_by, disk_unreadable, reread_options, trace_files
from support.paths import REPO
from torchcompile_doctor import pipeline
from torchcompile_doctor import source_files as source_snapshot
from torchcompile_doctor.capture_layout import SIDE_CHANNEL
from torchcompile_doctor.capture_layout import SOURCE_SNAPSHOT as FILE_NAME
from torchcompile_doctor.events.model import LogHealth
from torchcompile_doctor.events.parsers import NOT_AN_EVENT, parser_table
from torchcompile_doctor.events.reader import Record, record_kind
from torchcompile_doctor.model.findings import EndsEarlyEvidence
from torchcompile_doctor.model.report import Report
from torchcompile_doctor.source_files import SourceSnapshot, read_snapshot, write_snapshot

RECORDING = "recording.json"  # in each recorded capture: how it was made
CAPTURE_LINE = re.compile(r"^# capture: doctor (?P<command>\w+)(?P<options>.*)$")
_ENVELOPE = re.compile(r"^(?P<prefix>[VIWEC]\d{4} [^\]]*\] )(?P<meta>\{.*\})$")
# compilation_metrics fields no parser reads, and the largest: torch's config snapshots and tracebacks
DROPPED_METRICS = ("inductor_config", "dynamo_config", "functorch_config", "exception_stack_trace")


# ------------------------------------------------------------------------------------------------ strip


def _records(text: str) -> Iterator[tuple[str, dict | None, list[str]]]:
    """(first line, its metadata or None when it is no envelope, payload lines) of each record."""
    current: tuple[str, dict | None, list[str]] | None = None
    for line in text.split("\n"):
        if line.startswith("\t") and current is not None:
            current[2].append(line)
            continue
        if current is not None:
            yield current
        match = _ENVELOPE.match(line)
        try:
            meta = json.loads(match["meta"]) if match else None
        except ValueError:
            meta = None
        current = (line, meta if isinstance(meta, dict) else None, [])
    if current is not None:
        yield current


def _used(meta: dict, payload: list[str], strings: dict[int, str]) -> bool:
    """Does the doctor read this record? Records of kinds it does not know stay (it counts them)."""
    kind = record_kind(meta)
    if kind is None or kind == "str":
        return True
    parser = parser_table().get(kind)
    if parser is None:
        from torchcompile_doctor.events.parsers import IGNORED_KINDS

        return kind not in IGNORED_KINDS and not kind.startswith("artifact")
    text = "\n".join(line[1:] for line in payload) if payload else None
    try:
        return parser.parse(Record(kind, meta, text, 0), strings) is not NOT_AN_EVENT
    except Exception:  # noqa: BLE001 - a record the parser fails on is counted by the reader: keep it
        return True


def strip_trace(text: str) -> str:
    kept: list[str] = []
    strings: dict[int, str] = {}
    for first, meta, payload in _records(text):
        if meta is None:
            kept.append(first)
            kept += payload
            continue
        interned = meta.get("str")
        if isinstance(interned, list) and len(interned) == 2 and isinstance(interned[1], int):
            strings[interned[1]] = str(interned[0])
        if not _used(meta, payload, strings):
            continue
        metrics = meta.get("compilation_metrics")
        if isinstance(metrics, dict) and any(key in metrics for key in DROPPED_METRICS):
            for key in DROPPED_METRICS:
                metrics.pop(key, None)
            first = _ENVELOPE.match(first)["prefix"] + json.dumps(meta)  # type: ignore[index]
        kept.append(first)
        kept += payload
    return "\n".join(kept)


def _without_sizes(health: LogHealth) -> LogHealth:
    return dataclasses.replace(health, lines=0, records=0)


def _comparable(report: Report) -> Report:
    """A report without what stripping changes on purpose: how many lines and records the logs held (the run's,
    and a rank's that ends early, which its finding keeps)."""
    findings = tuple(
        dataclasses.replace(
            f, evidence=dataclasses.replace(f.evidence, log_health=_without_sizes(f.evidence.log_health))
        )
        if isinstance(f.evidence, EndsEarlyEvidence)
        else f
        for f in report.findings
    )
    return dataclasses.replace(report, log_health=_without_sizes(report.log_health), findings=findings)


def strip(source: Path, dest: Path) -> None:
    before = pipeline.reread(source).report
    # a --try-fixes capture keeps its experiments (each a capture of its own, stripped the same way)
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns("*inductor_cache"))
    for log in dest.rglob("*.log"):
        log.write_text(strip_trace(log.read_text(encoding="utf-8", errors="surrogateescape")), encoding="utf-8")
    after = pipeline.reread(dest).report
    if _comparable(before) != _comparable(after):
        raise SystemExit(f"stripping {source} changed its report; keep more (see `_used`)")


def move(source: Path, dest: Path, old: str, new: str) -> None:
    """Copy a capture with every recorded path under `old` moved under `new`: its logs (payload md5s written
    again), side channel and source snapshot, as if it had been made there."""

    def moved(text: str) -> str:
        return text.replace(old, new)

    shutil.copytree(source, dest)
    for log in dest.rglob("*.log"):
        out = []
        for first, meta, payload in _records(log.read_text(encoding="utf-8", errors="surrogateescape")):
            payload = [moved(line) for line in payload]
            if meta is not None:
                meta = json.loads(moved(json.dumps(meta)))
                if "has_payload" in meta:
                    meta["has_payload"] = hashlib.md5("\n".join(line[1:] for line in payload).encode()).hexdigest()
                first = _ENVELOPE.match(first)["prefix"] + json.dumps(meta)  # type: ignore[index]
            out += [first, *payload]
        log.write_text("\n".join(out), encoding="utf-8")
    for name in (SIDE_CHANNEL, FILE_NAME):
        for file in dest.rglob(name):
            file.write_text(moved(file.read_text(encoding="utf-8")), encoding="utf-8")


# ------------------------------------------------------------------------------------------------ record


def _capture_command(case: Path) -> tuple[str, list[str]]:
    """The doctor command and options a case is captured with: `# capture: doctor guards --measure` in its
    first lines, else `explain` alone."""
    for line in case.read_text(encoding="utf-8").splitlines()[:5]:
        match = CAPTURE_LINE.match(line)
        if match:
            return match["command"], match["options"].split()
    return "explain", []


def _versions() -> dict[str, str]:
    from importlib import metadata

    versions = {"python": ".".join(map(str, sys.version_info[:3]))}
    for package in ("torch", "transformers", "depyf"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            versions[package] = metadata.version(package)
    return versions


TORCH_LOGS_SUFFIX = ".torch_logs.txt"  # beside NAME.capture/: torch's own log of a plain run of the program
STDOUT_SUFFIX = ".stdout.txt"  # beside it: what that plain run printed, the output a fix must keep
TORCH_LOGS_ARTIFACTS = "graph_breaks,recompiles"


def record_torch_logs(case: Path, into: Path) -> str:
    """Run the program plainly (no doctor) under TORCH_LOGS and keep its stderr and stdout beside the capture; the
    command."""
    truth, printed = into.with_suffix(TORCH_LOGS_SUFFIX), into.with_suffix(STDOUT_SUFFIX)
    env = {**os.environ, "TORCH_LOGS": TORCH_LOGS_ARTIFACTS}
    run = subprocess.run([sys.executable, case.name], cwd=case.parent, capture_output=True, text=True, env=env)
    if run.returncode != 0:
        raise SystemExit(f"python {case.name} exited {run.returncode}:\n{run.stderr[-3000:]}")
    truth.write_text(run.stderr, encoding="utf-8")
    printed.write_text(run.stdout, encoding="utf-8")
    where, out = (os.path.relpath(path, case.parent) for path in (truth, printed))
    command = f"TORCH_LOGS={TORCH_LOGS_ARTIFACTS} python {case.name} 2> {where} > {out}"
    return f"cd {os.path.relpath(case.parent, REPO)} && {command}"


def record(case: Path, into: Path | None, more: list[str] | None = None, torch_logs: bool = False) -> Path:
    case = case.resolve()
    into = (into or case.with_suffix(".capture")).resolve()
    command, options = _capture_command(case)
    options += more or []
    with tempfile.TemporaryDirectory(prefix="recording-") as temp:
        artifacts = Path(temp) / "capture"
        args = [command, case.name, "--format", "json", "--artifacts", str(artifacts), *options]
        env = {k: v for k, v in os.environ.items() if k != "TORCH_LOGS"}
        run = subprocess.run(
            [sys.executable, "-m", "torchcompile_doctor", *args],
            cwd=case.parent,
            capture_output=True,
            text=True,
            env=env,
        )
        if run.returncode not in (0, 1, 3):
            raise SystemExit(f"doctor {' '.join(args)} exited {run.returncode}:\n{run.stderr[-3000:]}")
        shutil.rmtree(into, ignore_errors=True)
        strip(artifacts, into)
    shown = " ".join([command, case.name, "--format", "json", "--artifacts", "DIR", *options])
    also = f' --options "{" ".join(more)}"' if more else ""
    also += " --torch-logs" if torch_logs else ""
    tool = f"python tests/support/recording.py record {os.path.relpath(case, REPO)}"
    made = {
        "command": f"cd {os.path.relpath(case.parent, REPO)} && doctor {shown}",
        "recorded_with": f"{tool} --into {os.path.relpath(into, REPO)}{also}",
        "exit_code": run.returncode,
        "date": datetime.date.today().isoformat(),
        "versions": _versions(),
    }
    if torch_logs:
        made["torch_logs_command"] = record_torch_logs(case, into)
    (into / RECORDING).write_text(json.dumps(made, indent=2) + "\n", encoding="utf-8")
    _check_reread(json.loads(run.stdout), pipeline.reread(into).report)
    return into


def _check_reread(live: dict, reread: Report) -> None:
    """The re-read capture finds what the live run found: the same findings, where and why, and the same counts."""
    from torchcompile_doctor.renderers import render

    again = json.loads(render(reread, "json"))
    keys = ("code", "title", "location", "why", "fix", "count")
    differ = [
        (a, b)
        for a, b in zip(live["findings"], again["findings"], strict=False)
        if {k: a.get(k) for k in keys} != {k: b.get(k) for k in keys}
    ]
    if differ or len(live["findings"]) != len(again["findings"]) or live["summary"] != again["summary"]:
        raise SystemExit(f"the re-read capture differs from the live run: {differ[:1] or 'summary or count'}")


# ------------------------------------------------------------------------------------------------ snapshot


def _mapped(path: str, moves: list[tuple[str, str]]) -> str:
    for old, new in moves:
        if path == old or path.startswith(old.rstrip("/") + "/"):
            return new.rstrip("/") + path[len(old.rstrip("/")) :]
    return path


@contextlib.contextmanager
def _recording_disk(moves: list[tuple[str, str]], earlier: SourceSnapshot) -> Iterator[SourceSnapshot]:
    """Within the block a re-read reads what the `earlier` snapshot holds (the code as it was when the capture
    was made), else the disk through `moves`, and keeps what it read under the recorded paths."""
    kept = SourceSnapshot()
    disk_read, disk_is_install_dir = source_snapshot.read_source_file, source_snapshot.has_dist_info

    def read(path: str):
        lines = earlier.files[path] if path in earlier.files else disk_read(_mapped(path, moves))
        kept.files[path] = list(lines) if lines is not None else None
        return lines

    def is_install_dir(directory: str) -> bool:
        known = earlier.install_dirs.get(directory)
        answer = disk_is_install_dir(_mapped(directory, moves)) if known is None else known
        kept.install_dirs[directory] = answer
        return answer

    with disk_answered_by(read, is_install_dir):
        yield kept


def snapshot(path: Path, moves: list[tuple[str, str]]) -> None:
    """A capture dir's snapshot, or one snapshot for a folder of bare trace logs (each re-read in turn)."""
    folder = path if path.is_dir() else path.parent
    targets = [path] if (folder / SIDE_CHANNEL).is_file() else sorted(folder.glob("*.log"))
    old = folder / FILE_NAME
    earlier = read_snapshot(folder)
    moved_aside = old.with_suffix(".old") if old.is_file() else None
    if moved_aside:
        old.rename(moved_aside)  # every read goes through `_recording_disk`, which reads the earlier one first
    try:
        with _recording_disk(moves, earlier) as kept:
            reports = [pipeline.reread(target, reread_options(target)).report for target in targets]
    finally:
        if moved_aside:
            moved_aside.rename(old)
    changed = [note for report in reports for note in report.notes if note.startswith("source changed")]
    if changed:
        raise SystemExit(
            f"{folder}: the files read no longer match the trace (give --files-from):\n" + "\n".join(changed)
        )
    write_snapshot(kept, folder)
    check(targets)


# ------------------------------------------------------------------------------------------------ check


def every_capture() -> list[Path]:
    return capture_dirs() + trace_files()


def check(paths: list[Path]) -> None:
    """Each capture re-reads the same with the disk unreadable, asking the disk for nothing."""
    problems = []
    for path in paths:
        expected = pipeline.reread(path, reread_options(path)).report
        with disk_unreadable() as asked:
            again = pipeline.reread(path, reread_options(path)).report
        if asked or again != expected:
            problems.append(f"{path}: the snapshot lacks {sorted(set(asked))[:5]}")
    if problems:
        raise SystemExit("\n".join(problems))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    record_cmd = commands.add_parser("record")
    record_cmd.add_argument("case", type=Path)
    record_cmd.add_argument("--into", type=Path)
    record_cmd.add_argument("--options", default="", help='more doctor options, e.g. "--try-fixes --jobs 2"')
    record_cmd.add_argument("--torch-logs", action="store_true", help="also keep TORCH_LOGS' stderr of a plain run")
    strip_cmd = commands.add_parser("strip")
    strip_cmd.add_argument("source", type=Path)
    strip_cmd.add_argument("dest", type=Path)
    snapshot_cmd = commands.add_parser("snapshot")
    snapshot_cmd.add_argument("path", type=Path)
    snapshot_cmd.add_argument("--files-from", action="append", default=[], metavar="OLD=NEW")
    check_cmd = commands.add_parser("check")
    check_cmd.add_argument("paths", type=Path, nargs="*")
    move_cmd = commands.add_parser("move")
    for name in ("source", "dest"):
        move_cmd.add_argument(name, type=Path)
    for name in ("old", "new"):
        move_cmd.add_argument(name)
    args = parser.parse_args(argv)
    if args.command == "record":
        print(record(args.case, args.into, args.options.split(), args.torch_logs))
    elif args.command == "strip":
        strip(args.source, args.dest)
    elif args.command == "snapshot":
        snapshot(args.path, [tuple(move.split("=", 1)) for move in args.files_from])
    elif args.command == "move":
        move(args.source, args.dest, args.old, args.new)
    else:
        check(args.paths or every_capture())


if __name__ == "__main__":
    main()
