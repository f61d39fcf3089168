"""The report: findings with locations, evidence, impact and fixes, and the run's figures. Knows nothing about
formats: `model/json.py` serialises it (field order is the JSON's key order; `json_field` says the rest)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from enum import StrEnum

from torchcompile_doctor.events.model import ExplainResult, LogHealth, signal_name
from torchcompile_doctor.model.compile_time import CompileTime
from torchcompile_doctor.model.cudagraphs import CudagraphCoverage
from torchcompile_doctor.model.edits import FileEdit
from torchcompile_doctor.model.experiment import Experiment
from torchcompile_doctor.model.findings import (
    Evidence,
    GuardOverheadFigures,
    Impact,
    NoEvidence,
    NoImpact,
    SkippedFrame,
    Verification,
)
from torchcompile_doctor.model.gate import GateResult
from torchcompile_doctor.model.json import json_field
from torchcompile_doctor.model.paths import display_path, display_roots, display_text
from torchcompile_doctor.model.severity import SEVERITIES as SEVERITIES  # the report model names its severities

SCHEMA_VERSION = 1
# said in place of a line's text when its file is not on this machine (a log or trace recorded elsewhere)
SOURCE_NOT_AVAILABLE = "source not available here"


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


def target_ending(status: str, exit_code: int | None) -> str | None:
    """How a target that did not end by itself was stopped, in words (None: it ended by itself, or the logs do
    not say); never `exit code None`."""
    if status == TargetStatus.TIMEOUT:
        return "stopped at its --timeout"
    if status == TargetStatus.INTERRUPTED:
        return "stopped from outside (Ctrl-C or SIGTERM)"
    if status == TargetStatus.SIGNAL:
        return f"ended by {signal_name(-exit_code)}" if exit_code is not None else "ended by a signal"
    return None


def rank_list(ranks: Iterable[int]) -> str:
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
    file: str  # absolute path as torch saw it: for programs (an editor, `doctor fix`), never shown to people
    line: int
    function: str
    source: str | None = None  # the text of `line`, stripped
    # the path people read (model/paths.py): relative to the program's folder, or to site-packages for a library
    display_file: str = ""
    # (line number, text) of the lines around `line`, read at analysis time so that renderers read no files
    context: tuple[tuple[int, str], ...] = field(default=(), metadata=json_field(skip=True))

    @property
    def where(self) -> str:
        return f"{self.display_file or self.file}:{self.line}"

    @property
    def shown_source(self) -> str:
        """The line's text, or a note that this machine does not have the file (a log from another machine)."""
        return (self.source or "").strip() or SOURCE_NOT_AVAILABLE


@dataclass(frozen=True)
class SourceLine:
    """A line of code as the run read it: the line a fix's `before` quotes (its file and number are None where
    only the text is known, e.g. a guard's source line torch printed without its file)."""

    text: str  # unstripped: a rewrite keeps its indentation
    file: str | None = None
    line: int | None = None
    # the whole file as the run read it: a fix's edit is made on it and its hunk printed (None: only the line)
    file_text: str | None = field(default=None, compare=False, repr=False, metadata=json_field(skip=True))


@dataclass(frozen=True)
class RewritePlace:
    """Where a fix's rewrite is made, as the JSON names it: the file (as a location's, the path the run read)
    and the line its `before` quotes."""

    file: str
    line: int


def _rewrite_place(value: object) -> RewritePlace | None:
    """The JSON's `fix.rewrite_at`: null where the rewrite's line is not known by file and number."""
    if isinstance(value, SourceLine) and value.file is not None and value.line is not None:
        return RewritePlace(value.file, value.line)
    return None


@dataclass(frozen=True)
class Fix:
    summary: str
    before: str | None = None
    after: str | None = None
    # a change that needs no code edit, for --try-fixes (from the catalogue, or made for the finding)
    experiment: Experiment | None = field(default=None, metadata=json_field(skip=True))
    verified: Verification | None = None  # its measured effect (--try-fixes)
    # where `before` stands, so that `doctor fix` can make the rewrite there (and nowhere else)
    # (the JSON's {file, line}, or null: what `_rewrite_place` shows of it)
    rewrite_at: SourceLine | None = field(default=None, metadata=json_field(view=_rewrite_place))
    # the edits `before` -> `after` was rendered from (the transform's, made on the file at `rewrite_at`): what
    # `doctor fix` writes for this fix; none where only the line was known
    edits: tuple[FileEdit, ...] = field(default=(), metadata=json_field(skip=True))
    transforms: tuple[str, ...] = field(default=(), metadata=json_field(skip=True))  # the ones its rule names
    # every transform of its rule that built at the line (the first is before/after): `doctor fix` measures each
    rewrites: tuple[Rewrite, ...] = field(default=(), metadata=json_field(skip=True))


@dataclass(frozen=True)
class Rewrite:
    """A change of the user's code a transform built at a finding's line: its hunk and its edits."""

    transform: str
    before: str
    after: str
    edits: tuple[FileEdit, ...]


@dataclass(frozen=True)
class RuleHelp:
    """What a finding's catalogue entry says about the rule itself, for the formats that describe their rules
    (SARIF's reportingDescriptor): filled by the analysis from the catalogue, so that renderers read no catalogue."""

    name: str
    kind: str
    severity: str
    title: str  # the title as a rule's help shows it (no finding's facts in it)
    why: str
    fix: str
    what_it_does: str | None = None  # the explanation's sections
    why_is_this_bad: str | None = None
    references: tuple[str, ...] = ()
    docs_url: str | None = None
    gb_pages: tuple[str, ...] = ()  # torch's page of each graph-break id it matches
    page: str = ""  # the rule's page (`doctor rule CODE`, without the detector line), markdown


@dataclass(frozen=True, kw_only=True)
class Finding:
    rank: int = 0
    code: str
    rule_name: str = field(default="", metadata=json_field(name="rule"))
    kind: str
    severity: str
    title: str
    location: Location | None
    user_frame: Location | None = None  # for breaks inside library code: where the user's code called in
    gb_id: str | None = None
    gb_type: str | None = None
    category: str | None = None
    origin: str | None = None  # whose code the finding's line is: "user", "third_party" or "torch" (breaks)
    reason_class: str | None = None
    count: int = 1
    call_sites: tuple[str, ...] = ()
    why: str
    torch_says: str | None = None  # torch's own explanation of the break
    changes: tuple[str, ...] = ()  # recompile diffs, e.g. "x.dtype: float32 → float64"
    impact: Impact = field(default_factory=NoImpact)  # the figures that ranked it (model/findings.py)
    evidence: Evidence = field(default_factory=NoEvidence)  # what it was made from: compile ids, torch's text
    fix: Fix | None
    docs_url: str | None = None
    fingerprint: str
    ranks: tuple[int, ...] = (0,)  # the distributed ranks it occurred on; (0,) for a single process
    skipped_frames: tuple[SkippedFrame, ...] = ()  # a fallback: the frames its break made torch run eagerly
    # its rule as the catalogue describes it (None: a rule the catalogue lacks); not part of the JSON report
    rule_help: RuleHelp | None = field(default=None, compare=False, repr=False, metadata=json_field(skip=True))


# what the summary says of a figure that what was read cannot hold (a text log alone: no graphs, no compile time)
NOT_IN_THE_LOG = "not in the log"


@dataclass(frozen=True)
class Summary:
    graphs: int | None = 0  # None: what was read cannot hold it (a text log alone), never a measured 0
    graph_breaks: int = 0  # unique breaks by (file, line, type)
    graph_break_records: int = 0
    recompiles: int = 0  # every recompilation torch attempted, including one refused at the limit
    recompile_limit_hits: int = 0
    compile_failures: int = 0
    fallbacks_to_eager: int = 0  # frames skipped + functions over the recompile limit
    compile_time_s: float | None = field(default=0.0, metadata=json_field(round_to=3))  # None: as graphs

    def without_what_a_text_log_cannot_hold(self) -> Summary:
        """The summary of a report read from text logs alone: graphs and compile time unknown, not 0."""
        return replace(self, graphs=None, compile_time_s=None)


@dataclass(frozen=True)
class RankRow:
    """One distributed rank's figures, a row of the multi-rank table."""

    rank: int
    graphs: int | None  # None: not in what was read (a text log)
    graph_breaks: int
    recompiles: int
    compile_failures: int
    compile_time_s: float | None  # rounded to ms; None: as graphs
    ddp_splits: int
    target_status: str  # a TargetStatus value
    log: str  # "complete" or "ends early"


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


def _count(values: object) -> int:
    return len(values) if isinstance(values, tuple) else 0


@dataclass(frozen=True)
class CompiledFunctionGuards:
    """What one compiled function is guarded on: a GuardEntry per cache entry, and the measured cost per call."""

    function: str
    file: str
    line: int
    entries: tuple[GuardEntry, ...]
    overhead: GuardOverheadFigures | None = None
    display_file: str = field(default="", metadata=json_field(skip=True))
    # exact values of module attributes (`self.blocks[3].offset == 3`) that no cache entry ever saw change; the
    # JSON has their number
    steady_module_values: tuple[str, ...] = field(default=(), metadata=json_field(view=_count))


@dataclass(frozen=True)
class RunEnvironment:
    """Where and when the run happened: the program's folder and the library roots (a page people share shows
    paths relative to them), the Python version, and when the run started. Not in the JSON schema."""

    program_dir: str = ""  # the directory of the user's code (the analysis root)
    library_roots: tuple[str, ...] = ()  # site-packages and the standard library, as the capture saw them
    python_version: str | None = None
    started_at: float | None = None  # time.time() at the run's start (the first compile's, for a bare trace)


@dataclass(frozen=True)
class SuppressedRef:
    """A suppressed finding, as the JSON names it."""

    code: str
    location: Location | None


def _suppressed_refs(findings: object) -> tuple[SuppressedRef, ...]:
    items = findings if isinstance(findings, tuple) else ()
    return tuple(SuppressedRef(f.code, f.location) for f in items if isinstance(f, Finding))


@dataclass(frozen=True, kw_only=True)
class Report:
    schema_version: int = SCHEMA_VERSION
    tool_version: str
    torch_version: str | None
    target: str
    backend: str
    target_exit_code: int | None
    target_status: str  # a TargetStatus value
    summary: Summary
    findings: tuple[Finding, ...]
    notes: tuple[str, ...] = ()
    explain: ExplainResult | None = None  # what the child recorded of torch._dynamo.explain (function targets)
    log_health: LogHealth = field(default_factory=LogHealth)  # a snapshot of what the reader could not use
    guards: tuple[CompiledFunctionGuards, ...] = ()  # per compiled function (`doctor guards`)
    # one row per distributed rank (empty for one process)
    rank_table: tuple[RankRow, ...] = field(default=(), metadata=json_field(name="ranks"))
    gate: GateResult | None = None  # set by `doctor check`
    compile_time: CompileTime | None = None  # where the compile time went (None: no compile was logged)
    cudagraphs: CudagraphCoverage | None = None  # the graphs under CUDA graphs (None: CUDA graphs not asked for)
    # dropped by `# doctor: ignore[CODE]` comments; the JSON names each by its code and location
    suppressed: tuple[Finding, ...] = field(default=(), metadata=json_field(view=_suppressed_refs))
    # each rank's compile time in a multi-rank report (the HTML page's timeline lanes)
    rank_compile_times: tuple[tuple[int, CompileTime], ...] = field(default=(), metadata=json_field(skip=True))
    environment: RunEnvironment = field(default_factory=RunEnvironment, metadata=json_field(skip=True))

    @property
    def target_succeeded(self) -> bool:
        return target_succeeded(self.target_status, self.target_exit_code)

    def display_file(self, file: str, base_dir: str | None = None) -> str:
        """`file` as the report shows it to people: as a finding's location (or the user's frame) that names the
        same file shows it, else as `model.paths.display_path` shows it (relative to the program's folder, the
        library roots or the current directory `base_dir`; never a machine's absolute path)."""
        for finding in self.findings:
            for place in (finding.location, finding.user_frame):
                if place is not None and place.file == file and place.display_file:
                    return place.display_file
        return display_path(file, self.display_roots(base_dir), self.environment.program_dir)

    def display_target(self, base_dir: str | None = None) -> str:
        """The target as people read it: its script relative to the current directory (`base_dir`) when under it,
        else to the program's folder (`-m pkg.train` as it is)."""
        return display_text(
            self.target, self.display_roots(base_dir, checkout_first=True), self.environment.program_dir
        )

    def display_notes(self, base_dir: str | None = None) -> tuple[str, ...]:
        """The notes with any path in them shown as people read it."""
        roots = self.display_roots(base_dir)
        return tuple(display_text(note, roots, self.environment.program_dir) for note in self.notes)

    def display_roots(self, base_dir: str | None = None, *, checkout_first: bool = False) -> tuple[str, ...]:
        """The folders the report's paths are shown relative to (`model.paths.display_roots`)."""
        environment = self.environment
        return display_roots(
            environment.program_dir, environment.library_roots, base_dir, checkout_first=checkout_first
        )
