"""Typed events: what the parsers make of TORCH_TRACE records and the doctor's side channel.

Every event is a frozen dataclass; analysis only ever sees these, never raw log text.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, order=True)
class CompileId:
    """Dynamo's `frame_id/frame_compile_id` (attempts are restarts of the same compile). `session` counts
    the `torch._dynamo.reset()` calls before it: ids restart at 0/0 after a reset, so 0/0 of the second
    session is another compile than 0/0 of the first."""

    frame_id: int
    frame_compile_id: int
    session: int = 0

    def __str__(self) -> str:
        text = f"{self.frame_id}/{self.frame_compile_id}"
        return f"{text} (session {self.session + 1})" if self.session else text

    @classmethod
    def parse(cls, text: str) -> CompileId | None:
        head, _, tail = text.strip().partition("/")
        if head.isdecimal() and tail.isdecimal():  # isdigit() accepts '²', which int() refuses
            return cls(int(head), int(tail))
        return None


@dataclass(frozen=True)
class StackFrame:
    file: str
    line: int
    function: str
    code: str = ""


@dataclass(frozen=True)
class DynamoStart:
    """A frame's compilation began; `stack` is the user stack that reached it."""

    compile_id: CompileId
    stack: tuple[StackFrame, ...]


@dataclass(frozen=True)
class GraphBreak:
    """One `dynamo_graph_break_reason` record (one `[__graph_breaks]` log record)."""

    compile_id: CompileId | None
    file: str
    line: int
    gb_type: str
    gb_id: str | None  # from the record's gbNNNN.html link, when it has one
    explanation: str
    hints: tuple[str, ...]
    user_stack: tuple[StackFrame, ...]
    frame_skipped: bool
    secondary_gb_ids: tuple[str, ...]
    raw: str


@dataclass(frozen=True)
class Recompile:
    """One `recompile_reasons` record: why compile `compile_id` happened.

    `failures` holds one guard-failure text per existing cache entry, most recent entry first.
    """

    compile_id: CompileId | None
    failures: tuple[str, ...]


@dataclass(frozen=True)
class CompilationMetrics:
    compile_id: CompileId | None
    co_name: str | None
    co_filename: str | None
    co_firstlineno: int | None
    cache_size: int | None
    guard_count: int | None
    guard_latency_us: float | None
    graph_op_count: int | None
    compile_time_s: float
    fail_type: str | None
    fail_reason: str | None
    fail_file: str | None
    fail_line: int | None
    # where the compile time went (torch's own phase timers; None in logs that lack them)
    start_time_us: int | None = None
    backend_compile_s: float | None = None  # AOT autograd + the backend (inductor), from entire_frame
    inductor_compile_s: float | None = None  # inductor's part of backend_compile_s
    code_gen_s: float | None = None  # inductor's code generation, C++/Triton compile included
    async_compile_s: float | None = None  # waiting for kernels compiled in worker processes
    fx_cache: tuple[int, int] = (0, 0)  # local FX-graph cache (hits, misses)
    aot_cache: tuple[int, int] = (0, 0)  # local AOT-autograd cache (hits, misses)


@dataclass(frozen=True)
class Guard:
    """One leaf guard of the C++ guard tree (`dynamo_cpp_guards_str`)."""

    kind: str  # TENSOR_MATCH, EQUALS_MATCH, ID_MATCH, TYPE_MATCH, LAMBDA_GUARD, ...
    expression: str
    depth: int  # 1: directly under the root manager
    source: str | None = None  # the user's line that introduced it (torch's trailing comment)
    where: str | None = None  # "path/suffix.py:11" as torch wrote it (a shortened path)


@dataclass(frozen=True)
class GuardTree:
    compile_id: CompileId | None
    guards: tuple[Guard, ...]


@dataclass(frozen=True)
class OutputGraph:
    """A graph Dynamo handed to the backend.

    `inlined`: (file, line, function, times) of each user line the graph's nodes came from, as torch's
    `# File:` comments name them; `module_lists`: (attribute path, numbered children) of each nn.ModuleList
    (or Sequential) whose children's parameters are graph inputs, e.g. ("blocks", 8); `calls`: (file, line,
    function, name) of each function or method a user line's nodes call (`scores.topk(5)`: topk)."""

    compile_id: CompileId | None
    inlined: tuple[tuple[str, int, str, int], ...] = ()
    module_lists: tuple[tuple[str, int], ...] = ()
    calls: tuple[tuple[str, int, str, str], ...] = ()


@dataclass(frozen=True)
class InductorCacheEvent:
    compile_id: CompileId | None
    outcome: str  # "hit" | "miss" | "bypass"
    cache: str = "fx_graph"  # "fx_graph" | "aot_autograd"
    detail: str | None = None  # torch's cache_status_detailed, or its bypass reason
    time_saved_s: float | None = None  # what a hit saved, as torch measured the compile it replaced


@dataclass(frozen=True)
class CompileSpan:
    """A `chromium_event` span of a compile: (name, begin/end) for the phases the report splits out."""

    compile_id: CompileId | None
    name: str  # compile_file (one C++ kernel compiled in this process), async_compile.wait
    phase: str  # "B" | "E"
    ts_us: float


@dataclass(frozen=True)
class TorchVersion:
    version: str


@dataclass(frozen=True)
class DdpSplit:
    """One `optimize_ddp_split_graph` / `optimize_ddp_split_child` record: DDP's optimizer cut the graph
    of `compile_id` at gradient-bucket boundaries (`child` names one resulting subgraph; None: the split)."""

    compile_id: CompileId | None
    attempt: int
    child: str | None


# --- the doctor's side channel (written by the bootstrap in the child process) ---


@dataclass(frozen=True)
class BootstrapInfo:
    torch_version: str
    python_version: str
    target: str
    library_roots: tuple[str, ...]  # site-packages and stdlib dirs: code the user does not own
    backend_override: str | None
    pid: int | None = None  # the process that ran the target (matches the pid in its TORCH_TRACE envelopes)
    parent_pid: int | None = None
    role: str = "target"  # "target": the process that ran the target; "spawned": a process it spawned
    wall_time: float | None = None  # time.time() when the bootstrap started (the run's start)


@dataclass(frozen=True)
class BackendUse:
    """A torch.compile call the bootstrap saw: the backend asked for and the one that ran, what it compiled
    and from which line, and what disabled Dynamo at that moment (None: nothing did)."""

    requested: str
    used: str
    compiled: str | None = None  # `LlamaForCausalLM`, `step`, `LlamaForCausalLM.forward`
    compiled_kind: str | None = None  # "module", "method", "function", "other"
    file: str | None = None  # the line that called torch.compile
    line: int | None = None
    dynamo_disabled_by: str | None = None  # "TORCHDYNAMO_DISABLE=1", "torch._dynamo.config.disable"
    dynamic: bool | None = None  # the call's `dynamic=` (None: not passed)
    function_file: str | None = None  # the compiled function's code (a module's forward), when known
    function_line: int | None = None


@dataclass(frozen=True)
class CallSite:
    """A line of the user's that called a compiled plain function (recorded by the bootstrap)."""

    function_file: str
    function_line: int
    function: str
    file: str
    line: int
    caller: str


@dataclass(frozen=True)
class CallCount:
    """How often a compiled function (or module's forward) was called, and the last call during which Dynamo
    compiled (or tried to: a refused recompile counts); None when it never compiled inside a counted call."""

    function_file: str
    function_line: int
    function: str
    calls: int
    last_compile_call: int | None


@dataclass(frozen=True)
class GuardOverhead:
    """Measured per-call time of a compiled function: as compiled, with guard evaluation skipped, eager."""

    function_file: str
    function_line: int
    function: str
    calls: int
    compiled_us: float
    skip_guards_us: float | None
    eager_us: float | None
    error: str | None = None

    def as_dict(self) -> dict:
        return {
            "calls": self.calls,
            "compiled_us": self.compiled_us,
            "skip_guards_us": self.skip_guards_us,
            "eager_us": self.eager_us,
            "error": self.error,
        }


@dataclass(frozen=True)
class Warning_:
    """Something the capture could not do (e.g. depyf unavailable); it goes into the report's notes."""

    message: str


@dataclass(frozen=True)
class PerfHint:
    message: str
    logger: str
    compile_id: CompileId | None


@dataclass(frozen=True)
class ExplainResult:
    """`torch._dynamo.explain` on a function target (information, not the source of truth)."""

    graph_count: int
    graph_break_count: int
    break_reasons: tuple[str, ...]
    ops_per_graph: tuple[int, ...]
    error: str | None = None


@dataclass(frozen=True)
class TargetExit:
    """How the target ended, as the child saw it (the parent adds signals and timeouts)."""

    status: str  # "ok" | "exception" | "sys_exit"
    exit_code: int
    exception_type: str | None = None
    message: str | None = None
    stack: tuple[StackFrame, ...] = ()
    wall_time: float | None = None  # time.time() when the target ended


@dataclass
class LogHealth:
    """What the reader could not use. Counted, never fatal unless --strict."""

    lines: int = 0
    records: int = 0
    bad_lines: int = 0
    bad_json: int = 0
    md5_mismatches: int = 0
    unknown_kinds: int = 0
    parse_errors: int = 0
    truncated: bool = False

    @property
    def problems(self) -> int:
        return self.bad_lines + self.bad_json + self.md5_mismatches + self.parse_errors + int(self.truncated)

    def add(self, other: LogHealth) -> None:
        """Fold another file's counts into these (truncated if either was)."""
        for name in ("lines", "records", "bad_lines", "bad_json", "md5_mismatches", "unknown_kinds", "parse_errors"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.truncated = self.truncated or other.truncated

    def describe(self) -> str:
        """What went wrong, in words ("" when nothing did); unknown kinds included."""
        parts = ["the file ends mid-record (truncated)"] if self.truncated else []
        for count, what in (
            (self.bad_lines, "bad line(s)"),
            (self.bad_json, "bad JSON envelope(s)"),
            (self.md5_mismatches, "payload md5 mismatch(es)"),
            (self.parse_errors, "record(s) that did not parse"),
            (self.unknown_kinds, "record(s) of unknown kind"),
        ):
            if count:
                parts.append(f"{count} {what}")
        return ", ".join(parts)

    def as_dict(self) -> dict:
        return {
            "lines": self.lines,
            "records": self.records,
            "bad_lines": self.bad_lines,
            "bad_json": self.bad_json,
            "md5_mismatches": self.md5_mismatches,
            "unknown_kinds": self.unknown_kinds,
            "parse_errors": self.parse_errors,
            "truncated": self.truncated,
        }


@dataclass
class EventLog:
    """Everything one capture produced, in log order per kind."""

    dynamo_starts: list[DynamoStart] = field(default_factory=list)
    graph_breaks: list[GraphBreak] = field(default_factory=list)
    recompiles: list[Recompile] = field(default_factory=list)
    metrics: list[CompilationMetrics] = field(default_factory=list)
    output_graphs: list[OutputGraph] = field(default_factory=list)
    guard_trees: list[GuardTree] = field(default_factory=list)
    inductor_cache: list[InductorCacheEvent] = field(default_factory=list)
    compile_spans: list[CompileSpan] = field(default_factory=list)
    torch_versions: list[TorchVersion] = field(default_factory=list)
    ddp_splits: list[DdpSplit] = field(default_factory=list)
    bootstrap: list[BootstrapInfo] = field(default_factory=list)
    backends: list[BackendUse] = field(default_factory=list)
    perf_hints: list[PerfHint] = field(default_factory=list)
    call_sites: list[CallSite] = field(default_factory=list)
    call_counts: list[CallCount] = field(default_factory=list)
    guard_overheads: list[GuardOverhead] = field(default_factory=list)
    warnings: list[Warning_] = field(default_factory=list)
    explain: list[ExplainResult] = field(default_factory=list)
    target_exits: list[TargetExit] = field(default_factory=list)
    health: LogHealth = field(default_factory=LogHealth)

    def add(self, event: object) -> None:
        getattr(self, _LIST_FOR[type(event)]).append(event)

    def extend(self, other: EventLog) -> None:
        """Append another log's events (e.g. a second trace file of the same rank) and its health."""
        for name in _LIST_FOR.values():
            getattr(self, name).extend(getattr(other, name))
        self.health.add(other.health)


_LIST_FOR = {
    DynamoStart: "dynamo_starts",
    GraphBreak: "graph_breaks",
    Recompile: "recompiles",
    CompilationMetrics: "metrics",
    OutputGraph: "output_graphs",
    GuardTree: "guard_trees",
    InductorCacheEvent: "inductor_cache",
    CompileSpan: "compile_spans",
    TorchVersion: "torch_versions",
    DdpSplit: "ddp_splits",
    BootstrapInfo: "bootstrap",
    BackendUse: "backends",
    PerfHint: "perf_hints",
    CallSite: "call_sites",
    CallCount: "call_counts",
    GuardOverhead: "guard_overheads",
    Warning_: "warnings",
    ExplainResult: "explain",
    TargetExit: "target_exits",
}
