"""The report: findings with locations, evidence, impact and fixes. Knows nothing about formats."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from torchcompile_doctor.compile_time import CompileTime
    from torchcompile_doctor.finding_data import SkippedFrame, Verification

SCHEMA_VERSION = 1

# Most harmful first; the order ranking uses.
SEVERITIES = ("critical", "high", "medium", "low", "info")


class Kind(StrEnum):
    """What a finding is about; each rule of the catalogue has one."""

    GRAPH_BREAK = "graph_break"
    COMPILE_FAILURE = "compile_failure"
    COMPILE_TIME = "compile_time"
    FRAME_SKIPPED = "frame_skipped"
    RECOMPILE = "recompile"
    RECOMPILE_LIMIT = "recompile_limit"
    PERF_HINT = "perf_hint"
    TARGET_ERROR = "target_error"
    UNUSED_SUPPRESSION = "unused_suppression"
    GUARD_COST = "guard_cost"
    RANK_DIVERGENCE = "rank_divergence"
    DDP_SPLIT = "ddp_split"
    NOTHING_COMPILED = "nothing_compiled"
    CUDAGRAPHS = "cudagraphs"  # CUDA graphs skipped, bypassed per call, overwritten outputs, one graph per size

    @property
    def is_break(self) -> bool:
        """Counted in the summary's graph breaks: a break, or one that made torch skip its frame."""
        return self in (Kind.GRAPH_BREAK, Kind.FRAME_SKIPPED)

    @property
    def is_fallback(self) -> bool:
        """Code that now runs eagerly: a skipped frame, or a function over the recompile limit."""
        return self in (Kind.FRAME_SKIPPED, Kind.RECOMPILE_LIMIT)

    @property
    def is_costed(self) -> bool:
        """Its findings measure the compile time they account for, and are ranked and banded by it."""
        return self in (Kind.GRAPH_BREAK, Kind.FRAME_SKIPPED, Kind.RECOMPILE)


KINDS = tuple(kind.value for kind in Kind)


class TargetStatus(StrEnum):
    """How the target ended, as the capture saw it."""

    OK = "ok"  # ran to the end
    SYS_EXIT = "sys_exit"  # called sys.exit (the exit code says whether that was a failure)
    EXCEPTION = "exception"  # raised
    EXIT = "exit"  # the process ended without saying how (os._exit)
    SIGNAL = "signal"  # killed by a signal (a crash)
    TIMEOUT = "timeout"  # stopped by --timeout
    INTERRUPTED = "interrupted"  # stopped by Ctrl-C or SIGTERM
    UNKNOWN = "unknown"  # no record of how it ended (a re-read log, a dump)

    @property
    def finished(self) -> bool:
        """It reached its own end (its exit code still decides whether it succeeded)."""
        return self in (TargetStatus.OK, TargetStatus.SYS_EXIT)


def target_succeeded(status: str, exit_code: int | None) -> bool:
    """The one definition of a successful target: it finished and exited 0."""
    return TargetStatus(status).finished and exit_code == 0


def rank_list(ranks) -> str:
    """Ranks as people write them: `0`, `0, 2`, `0-3, 5` (runs of consecutive ranks collapsed)."""
    runs: list[list[int]] = []
    for rank in sorted(set(ranks)):
        if runs and rank == runs[-1][-1] + 1:
            runs[-1].append(rank)
        else:
            runs.append([rank])
    return ", ".join(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}" for run in runs)


@dataclass(frozen=True)
class Location:
    file: str  # absolute path as torch saw it
    line: int
    function: str
    source: str | None = None  # the text of `line`, stripped
    display_file: str = ""  # relative to the target's directory (or site-packages) for humans
    # (line number, text) of the lines around `line`, read at analysis time so that renderers read no files;
    # not in as_dict (the JSON schema carries `source` only)
    context: tuple[tuple[int, str], ...] = ()

    def as_dict(self) -> dict:
        return {"file": self.file, "line": self.line, "function": self.function, "source": self.source}

    @property
    def where(self) -> str:
        return f"{self.display_file or self.file}:{self.line}"


@dataclass(frozen=True)
class Fix:
    summary: str
    before: str | None = None
    after: str | None = None
    experiment: dict | None = None  # a change that needs no code edit, for --try-fixes (see the catalogue)
    verified: Verification | None = None  # its measured effect (--try-fixes)

    def as_dict(self) -> dict:
        verified = self.verified.as_dict() if self.verified is not None else None
        return {"summary": self.summary, "before": self.before, "after": self.after, "verified": verified}


@dataclass(frozen=True)
class Finding:
    code: str
    kind: str
    severity: str
    title: str
    location: Location | None
    why: str
    fix: Fix | None
    fingerprint: str
    rule_name: str = ""
    gb_id: str | None = None
    gb_type: str | None = None
    category: str | None = None
    origin: str | None = None  # whose code the finding's line is: "user", "third_party" or "torch" (breaks)
    reason_class: str | None = None
    count: int = 1
    call_sites: tuple[str, ...] = ()
    user_frame: Location | None = None  # for breaks inside library code: where the user's code called in
    torch_says: str | None = None  # torch's own explanation of the break
    changes: tuple[str, ...] = ()  # recompile diffs, e.g. "x.dtype: float32 → float64"
    # the figures that ranked it, and what it was made from: a finding_data record per family (or a dict)
    impact: Mapping[str, Any] = field(default_factory=dict)
    evidence: Mapping[str, Any] = field(default_factory=dict)  # compile ids, raw torch text
    docs_url: str | None = None
    rank: int = 0
    ranks: tuple[int, ...] = (0,)  # the distributed ranks it occurred on; (0,) for a single process
    skipped_frames: tuple[SkippedFrame, ...] = ()  # a fallback: the frames its break made torch run eagerly

    def as_dict(self) -> dict:
        return {
            "rank": self.rank,
            "code": self.code,
            "rule": self.rule_name,
            "kind": self.kind,
            "severity": self.severity,
            "title": self.title,
            "location": self.location.as_dict() if self.location else None,
            "user_frame": self.user_frame.as_dict() if self.user_frame else None,
            "gb_id": self.gb_id,
            "gb_type": self.gb_type,
            "category": self.category,
            "origin": self.origin,
            "reason_class": self.reason_class,
            "count": self.count,
            "call_sites": list(self.call_sites),
            "why": self.why,
            "torch_says": self.torch_says,
            "changes": list(self.changes),
            "impact": dict(self.impact),
            "evidence": dict(self.evidence),
            "fix": self.fix.as_dict() if self.fix else None,
            "docs_url": self.docs_url,
            "fingerprint": self.fingerprint,
            "ranks": list(self.ranks),
            "skipped_frames": [frame.as_dict() for frame in self.skipped_frames],
        }


@dataclass(frozen=True)
class Summary:
    graphs: int = 0
    graph_breaks: int = 0  # unique breaks by (file, line, type)
    graph_break_records: int = 0
    recompiles: int = 0  # every recompilation torch attempted, including one refused at the limit
    recompile_limit_hits: int = 0
    compile_failures: int = 0
    fallbacks_to_eager: int = 0  # frames skipped + functions over the recompile limit
    compile_time_s: float = 0.0

    def as_dict(self) -> dict:
        return {
            "graphs": self.graphs,
            "graph_breaks": self.graph_breaks,
            "graph_break_records": self.graph_break_records,
            "recompiles": self.recompiles,
            "recompile_limit_hits": self.recompile_limit_hits,
            "compile_failures": self.compile_failures,
            "fallbacks_to_eager": self.fallbacks_to_eager,
            "compile_time_s": round(self.compile_time_s, 3),
        }


DEFAULT_FAIL_ON = "low"  # no criterion given: every finding but info fails, as in a linter (baseline the rest)


@dataclass(frozen=True)
class GateCriteria:
    """What fails the gate; every criterion looks only at findings the baseline does not hold."""

    fullgraph: bool = False
    max_graph_breaks: int | None = None
    max_recompiles: int | None = None
    fail_on: str | None = None  # a severity: findings of it or worse fail
    by_default: bool = False  # no criterion was given: findings of preview rules do not fail the gate

    def or_default(self) -> GateCriteria:
        """These criteria, or `--fail-on low` (preview rules left out) when none is given."""
        return self if self != GateCriteria() else GateCriteria(fail_on=DEFAULT_FAIL_ON, by_default=True)

    def describe(self) -> tuple[str, ...]:
        """The criteria as the user would write them on the command line."""
        parts = ["--fullgraph"] if self.fullgraph else []
        if self.max_graph_breaks is not None:
            parts.append(f"--max-graph-breaks {self.max_graph_breaks}")
        if self.max_recompiles is not None:
            parts.append(f"--max-recompiles {self.max_recompiles}")
        if self.fail_on is not None:
            parts.append(f"--fail-on {self.fail_on}")
        return tuple(parts)


@dataclass(frozen=True)
class BaselineUpdate:
    """What `--update-baseline` wrote: entries added, fixed ones pruned, the rest kept."""

    added: int
    pruned: int
    kept: int

    def as_dict(self) -> dict:
        return {"added": self.added, "pruned": self.pruned, "kept": self.kept}


@dataclass(frozen=True)
class BaselineSummary:
    """What the gate says about the baseline file for one report (`doctor check --baseline`)."""

    path: str
    torch_release: str  # the release whose section was used (another one's when this torch has none)
    note: str | None = None  # why the section may not fit (it was written for another torch release)
    fixed: tuple[str, ...] = ()  # entries no longer found: "TCD101 s.py in step"
    updated: BaselineUpdate | None = None  # set when this run rewrote the file
    known: int = 0  # findings the baseline holds (they never fail the gate)
    new: int = 0
    worse: tuple[str, ...] = ()  # known findings that occur more often now: "TCD101 s.py:5: 1 → 2"

    def as_dict(self) -> dict:
        document: dict = {
            "path": self.path,
            "torch_release": self.torch_release,
            "note": self.note,
            "fixed": list(self.fixed),
        }
        if self.updated is not None:  # the key is present only when the file was rewritten (schema v1)
            document["updated"] = self.updated.as_dict()
        return {**document, "known": self.known, "new": self.new, "worse": list(self.worse)}


@dataclass(frozen=True)
class GateResult:
    """What `doctor check` decided: which findings failed the gate and why."""

    passed: bool
    criteria: tuple[str, ...] = ()  # what was checked, as the user wrote it: "--fullgraph", "--max-recompiles 4"
    failures: tuple[tuple[str, str], ...] = ()  # (finding fingerprint, why it failed the gate)
    violations: tuple[str, ...] = ()  # reasons not tied to one finding: "5 recompiles > --max-recompiles 4"
    baseline: BaselineSummary | None = None

    def reason_for(self, finding: Finding) -> str | None:
        return next((why for fingerprint, why in self.failures if fingerprint == finding.fingerprint), None)

    def as_dict(self) -> dict:
        return {
            "passed": self.passed,
            "criteria": list(self.criteria),
            "failures": [{"fingerprint": fp, "why": why} for fp, why in self.failures],
            "violations": list(self.violations),
            "baseline": self.baseline.as_dict() if self.baseline else None,
        }


@dataclass(frozen=True)
class RankRow(Mapping):
    """One distributed rank's figures, a row of the multi-rank table. Reads like a mapping too (`row["rank"]`),
    as the rows were dicts before."""

    rank: int
    graphs: int
    graph_breaks: int
    recompiles: int
    compile_failures: int
    compile_time_s: float  # rounded to ms
    ddp_splits: int
    target_status: str  # a TargetStatus value
    log: str  # "complete" or "ends early"

    def as_dict(self) -> dict:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}

    def __getitem__(self, key: str) -> object:
        if key not in self.__dataclass_fields__:
            raise KeyError(key)
        return getattr(self, key)

    def __iter__(self) -> Iterator[str]:
        return iter(self.__dataclass_fields__)

    def __len__(self) -> int:
        return len(self.__dataclass_fields__)


@dataclass(frozen=True)
class GuardEntry:
    """The guards of one cache entry of a compiled function (one compile id)."""

    compile_id: str
    guard_count: int | None  # torch's compilation_metrics.guard_count
    tree_guards: int  # leaves of the C++ guard tree (what by_kind sums to)
    by_kind: dict[str, int]
    latency_us: float | None  # torch's one cold measurement right after compiling: an estimate
    by_source_line: dict[str, int]
    user_value_guards: int  # guards on Python values (constants, ids, types, dict keys) from the user's lines
    pins: tuple[str, ...]  # the guards that pin user values, in plain words (a sample)
    changed: tuple[str, ...]  # guards that differ from the previous cache entry of the frame

    def as_dict(self) -> dict:
        return {
            "compile_id": self.compile_id,
            "guard_count": self.guard_count,
            "tree_guards": self.tree_guards,
            "by_kind": dict(self.by_kind),
            "latency_us": self.latency_us,
            "by_source_line": dict(self.by_source_line),
            "user_value_guards": self.user_value_guards,
            "pins": list(self.pins),
            "changed": list(self.changed),
        }


@dataclass(frozen=True)
class CompiledFunctionGuards:
    """What one compiled function is guarded on: a GuardEntry per cache entry, and the measured cost per call."""

    function: str
    file: str
    line: int
    entries: tuple[GuardEntry, ...]
    overhead: dict | None = None  # measured per call: eager_us, compiled_us, skip_guards_us
    display_file: str = ""
    # exact values of module attributes (`self.blocks[3].offset == 3`) that no cache entry ever saw change
    steady_module_values: tuple[str, ...] = ()

    def as_dict(self) -> dict:
        return {
            "function": self.function,
            "file": self.file,
            "line": self.line,
            "entries": [e.as_dict() for e in self.entries],
            "overhead": self.overhead,
            "steady_module_values": len(self.steady_module_values),
        }


@dataclass(frozen=True)
class RunEnvironment:
    """Where and when the run happened: the program's folder and the library roots (a page people share shows
    paths relative to them), the Python version, and when the run started. Not in the JSON schema."""

    program_dir: str = ""  # the directory of the user's code (the analysis root)
    library_roots: tuple[str, ...] = ()  # site-packages and the standard library, as the capture saw them
    python_version: str | None = None
    started_at: float | None = None  # time.time() at the run's start (the first compile's, for a bare trace)


@dataclass(frozen=True)
class Report:
    tool_version: str
    torch_version: str | None
    target: str
    backend: str
    target_exit_code: int | None
    target_status: str  # a TargetStatus value
    summary: Summary
    findings: tuple[Finding, ...]
    notes: tuple[str, ...] = ()
    explain: dict | None = None
    log_health: dict = field(default_factory=dict)
    suppressed: tuple[Finding, ...] = ()  # dropped by `# doctor: ignore[CODE]` comments
    guards: tuple[CompiledFunctionGuards, ...] = ()  # per compiled function (`doctor guards`)
    rank_table: tuple[RankRow, ...] = ()  # one row per distributed rank (empty for one process)
    gate: GateResult | None = None  # set by `doctor check`
    compile_time: CompileTime | None = None  # where the compile time went (None: no compile was logged)
    # each rank's compile time in a multi-rank report (the HTML page's timeline lanes); not in the JSON schema
    rank_compile_times: tuple[tuple[int, CompileTime], ...] = ()
    environment: RunEnvironment = field(default_factory=RunEnvironment)
    schema_version: int = SCHEMA_VERSION

    @property
    def target_succeeded(self) -> bool:
        return target_succeeded(self.target_status, self.target_exit_code)

    def as_dict(self) -> dict:
        return {
            "schema_version": self.schema_version,
            "tool_version": self.tool_version,
            "torch_version": self.torch_version,
            "target": self.target,
            "backend": self.backend,
            "target_exit_code": self.target_exit_code,
            "target_status": self.target_status,
            "summary": self.summary.as_dict(),
            "findings": [f.as_dict() for f in self.findings],
            "notes": list(self.notes),
            "explain": self.explain,
            "log_health": dict(self.log_health),
            "guards": [frame.as_dict() for frame in self.guards],
            "ranks": [row.as_dict() for row in self.rank_table],
            "gate": self.gate.as_dict() if self.gate else None,
            "compile_time": self.compile_time.as_dict() if self.compile_time else None,
            "suppressed": [
                {"code": f.code, "location": f.location.as_dict() if f.location else None} for f in self.suppressed
            ],
        }
