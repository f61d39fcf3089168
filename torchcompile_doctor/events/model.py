"""Typed events: what the parsers make of TORCH_TRACE records and the doctor's side channel.

Every event is a frozen dataclass; analysis only ever sees these, never raw log text.
"""

from __future__ import annotations

import signal as signals
from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import lru_cache

from torchcompile_doctor.events.guard_failures import GuardFailure, parse_guard_failures
from torchcompile_doctor.events.guard_terms import GuardTerm, guard_term


# The two events a big log holds tens of thousands of (a compile id per record, a span end per chromium record)
# keep their fields in slots: no per-object dict.
@dataclass(frozen=True, order=True, slots=True)
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

    @staticmethod
    def parse(text: str) -> CompileId | None:
        return _parse_compile_id(text)


@lru_cache(maxsize=1 << 12)
def _parse_compile_id(text: str) -> CompileId | None:
    """Each record names its compile: one (frozen, so shared) CompileId per text a log repeats."""
    head, _, tail = text.strip().partition("/")
    if head.isdecimal() and tail.isdecimal():  # isdigit() accepts '²', which int() refuses
        return CompileId(int(head), int(tail))
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
    """One `dynamo_graph_break_reason` record (one `[__graph_breaks]` log record), its text parsed once
    (events/parsers/graph_break_reason.py): where and why, and what torch's words name besides."""

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
    message: str = ""  # torch's text without the traceback of the exception it raised
    logger_call: tuple[str, str] | None = None  # a `logging.Logger` method called: (logger name, method)
    raised_call: str | None = None  # the exception torch saw raised, as a call: `ValueError('...')`
    raised: str | None = None  # what follows `raised exception` in torch's text, whatever its shape
    # a call to a function Dynamo skips: (its name, its file) as torch names them
    skipped_call: tuple[str, str] | None = None
    # the frames torch's own skip messages name (`frame skipped: f (file line N)`), as (file, line, name) frames
    named_skips: tuple[StackFrame, ...] = ()


@dataclass(frozen=True)
class Recompile:
    """One `recompile_reasons` record: why compile `compile_id` happened.

    `failures` holds one guard-failure text per existing cache entry, most recent entry first, as torch wrote
    them; `guard_failures` the same texts parsed (events/guard_failures.py; a text of no known shape left out).
    """

    compile_id: CompileId | None
    failures: tuple[str, ...]
    # the function recompiled (file, first line, code name): a text log's `Recompiling function f in file:line`
    # names it; TORCH_TRACE's record does not (its compilation_metrics do)
    frame: tuple[str, int, str] | None = None
    guard_failures: tuple[GuardFailure, ...] = ()

    @classmethod
    def of(
        cls, compile_id: CompileId | None, failures: tuple[str, ...], frame: tuple[str, int, str] | None = None
    ) -> Recompile:
        """The event with its texts parsed."""
        return cls(compile_id, failures, frame, parse_guard_failures(failures))


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
    # what compiled the kernels: "triton" when torch timed a Triton compile (a GPU); None when the record does
    # not say (on a CPU the C++ compile shows as `compile_file` spans instead)
    kernel_compiler: str | None = None
    autotune_s: float | None = None  # max-autotune's benchmarking of kernel choices during this compile
    torch_version: str | None = None  # the torch that wrote the record (`pytorch_version`)
    failed_backend: str | None = None  # a backend that raised (BackendCompilerFailed): its name, as torch wrote it
    backend_error: str | None = None  # and what it raised
    # what `fail_reason` says, parsed once (events/parsers/compilation_metrics.py)
    fail_gb_id: str | None = None  # the graph break's id, from the first gbNNNN.html link of its text
    fail_explanation: str | None = None  # its `Explanation:` line
    hit_recompile_limit: bool = False  # torch refused to compile again: the function hit the recompile limit
    recompile_limit: int | None = None  # the limit, when torch says it (`currently set to 8`)


@dataclass(frozen=True)
class BackwardCompilationMetrics(CompilationMetrics):
    """`bwd_compilation_metrics`: inductor's compile of a graph's backward, made lazily at its first backward call
    (outside the frame's compile, so in no `compilation_metrics`); its `compile_time_s` is inductor's time."""


@dataclass(frozen=True)
class Guard:
    """One leaf guard of the C++ guard tree (`dynamo_cpp_guards_str`)."""

    kind: str  # TENSOR_MATCH, EQUALS_MATCH, ID_MATCH, TYPE_MATCH, LAMBDA_GUARD, ...
    expression: str
    depth: int  # 1: directly under the root manager
    source: str | None = None  # the user's line that introduced it (torch's trailing comment)
    where: str | None = None  # "path/suffix.py:11" as torch wrote it (a shortened path)
    # the expression read (events/guard_terms.py): what the analysis reads of it, never the text
    term: GuardTerm = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "term", guard_term(self.expression))  # frozen: set once, at construction


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
    fp32_gpu_matmuls: int = 0  # matmul-class calls (linear, matmul, @, bmm, sdpa) with a float32 CUDA result
    calls: tuple[tuple[str, int, str, str], ...] = ()


@dataclass(frozen=True)
class InductorCacheEvent:
    compile_id: CompileId | None
    outcome: str  # "hit" | "miss" | "bypass"
    cache: str = "fx_graph"  # "fx_graph" | "aot_autograd"
    detail: str | None = None  # torch's cache_status_detailed, or its bypass reason
    time_saved_s: float | None = None  # what a hit saved, as torch measured the compile it replaced


@dataclass(frozen=True, slots=True)
class CompileSpan:
    """One end of a `chromium_event` span torch logged: its name, begin ("B") or end ("E"), and when."""

    compile_id: CompileId | None  # None: a span outside any compile of this process (a worker's kernel compile)
    name: str  # dynamo, entire_frame_compile, bytecode_tracing, backend_compile, compile_file, ...
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
    """A line of the user's that called a compiled function or module (recorded by the bootstrap)."""

    function_file: str
    function_line: int
    function: str
    file: str
    line: int
    caller: str
    # the call's place within its lines (Python's positions table), to read its arguments back from the source
    column: int | None = None
    end_line: int | None = None
    end_column: int | None = None


@dataclass(frozen=True)
class CallCount:
    """How often a compiled function (or module's forward) was called, and the last call during which Dynamo
    compiled (or tried to: a refused recompile counts); None when it never compiled inside a counted call."""

    function_file: str
    function_line: int
    function: str
    calls: int
    last_compile_call: int | None
    steady_calls: int = 0  # calls timed that compiled nothing (the latest ones, a bounded sample)
    steady_median_s: float | None = None  # their median duration


@dataclass(frozen=True)
class GuardOverhead:
    """Measured per-call time of a compiled function: as compiled, with guard evaluation skipped, eager."""

    function_file: str
    function_line: int
    function: str
    calls: int
    compiled_us: float  # the median of rounds
    skip_guards_us: float | None
    eager_us: float | None
    error: str | None = None
    compiled_spread_us: float | None = None  # max - min over the rounds (None: a capture before they were kept)
    skip_guards_spread_us: float | None = None
    rounds: int | None = None


@dataclass(frozen=True)
class Warning_:
    """Something the capture could not do (e.g. depyf unavailable); it goes into the report's notes."""

    message: str


@dataclass(frozen=True)
class PerfHint:
    message: str
    logger: str
    compile_id: CompileId | None
    fallback_op: str | None = None  # `Using FallbackKernel: <op>`: the op inductor has no lowering for
    worded: str | None = None  # the hint in words, where torch's text is made of its internals (guard sources)


@dataclass(frozen=True)
class ExplainResult:
    """`torch._dynamo.explain` on a function target (information, not the source of truth)."""

    graph_count: int
    graph_break_count: int
    break_reasons: tuple[str, ...]
    ops_per_graph: tuple[int, ...]
    error: str | None = None


@dataclass(frozen=True)
class RunOutcome:
    """How the capture's child process ended, as the parent saw it (capture/runner.py); the child's own word is
    its TargetExit. All None/False: not a live run (a re-read log says nothing of how its process ended)."""

    returncode: int | None = None  # None when the child was stopped by us, or killed by a signal
    signal: int | None = None  # the signal that ended the child, if any
    timed_out: bool = False
    interrupted: bool = False
    timeout_s: float | None = None
    stopped_by: int | None = None  # the signal that made the doctor stop the run: SIGINT (Ctrl-C) or SIGTERM
    elapsed_s: float | None = None  # how long the target ran, as the parent timed it

    @property
    def how_stopped(self) -> str | None:
        """How the run was stopped from outside, in words ("stopped at the --timeout of 30 s", "stopped by SIGINT
        (Ctrl-C) after 12.3 s", "stopped by SIGKILL after 4.0 s"); None when it was not (a crash is no stop)."""
        if self.timed_out:
            return f"stopped at the --timeout of {self.timeout_s:g} s" if self.timeout_s else "stopped at its --timeout"
        if self.interrupted:
            return f"stopped by {signal_name(self.stopped_by or _SIGINT)}{self._after}"
        if self.signal is not None and is_stopping_signal(self.signal):
            return f"stopped by {signal_name(self.signal)}{self._after}"
        return None

    @property
    def how_it_died(self) -> str | None:
        """How a run that did not end by itself ended, in words: stopped (how_stopped), or crashed with a signal
        ("crashed with SIGSEGV"); None when it ended by itself."""
        if self.how_stopped is not None:
            return self.how_stopped
        return f"crashed with {signal_name(self.signal)}" if self.signal is not None else None

    @property
    def _after(self) -> str:
        return f" after {self.elapsed_s:.1f} s" if self.elapsed_s is not None else ""


_SIGINT = int(signals.SIGINT)
# what another process (a user, a job runner, the kernel's OOM killer) sends to stop a program; the others
# (SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL) are the program crashing
_STOPPING_SIGNALS = frozenset(int(s) for s in (signals.SIGINT, signals.SIGTERM, signals.SIGKILL, signals.SIGHUP))


def is_stopping_signal(number: int) -> bool:
    """A signal another process sends to stop a program (not the program crashing)."""
    return number in _STOPPING_SIGNALS


def signal_name(number: int) -> str:
    """`SIGINT (Ctrl-C)`, `SIGKILL`, or `signal 99` for a number no signal has here."""
    try:
        name = signals.Signals(number).name
    except ValueError:
        return f"signal {number}"
    return f"{name} (Ctrl-C)" if number == _SIGINT else name


@dataclass(frozen=True)
class TargetExit:
    """How the target ended, as the child saw it (the parent adds signals and timeouts)."""

    status: str  # "ok" | "exception" | "sys_exit"
    exit_code: int
    exception_type: str | None = None
    message: str | None = None
    stack: tuple[StackFrame, ...] = ()
    wall_time: float | None = None  # time.time() when the target ended
    # an exception raised while Dynamo traced: the frames of torch's `from user code:` section (the traced line)
    traced_stack: tuple[StackFrame, ...] = ()


# --- what torch says to Python loggers and warnings, not to TORCH_TRACE (CUDA graphs, TF32, perf hints): read
# live by the capture's hooks (the side channel) or from a job's text log (events/textlog.py), and turned into
# these events by the same parsers (events/messages/)


class CudagraphSkipReason(StrEnum):
    """Why torch ran a graph without CUDA graphs (`skipping cudagraphs due to ...`), as torch's text says it."""

    MUTATED_INPUTS = "mutated_inputs"  # an in-place write to an input that is no parameter, buffer or static input
    CPU_DEVICE = "cpu_device"  # a CPU tensor or op in the graph, or tensors on several devices
    DYNAMIC_SHAPES = "dynamic_shapes"  # symbolic shapes with cudagraph_skip_dynamic_graphs=True
    INCOMPATIBLE_OP = "incompatible_op"  # an op CUDA graphs cannot capture (control flow, sparse, boolean index_put_)
    NON_TENSOR_INPUTS = "non_tensor_inputs"
    RERECORD_LIMIT = "rerecord_limit"  # re-recorded too often (input addresses that keep changing)
    OTHER = "other"


@dataclass(frozen=True)
class CudagraphSkip:
    """torch did not use CUDA graphs for a graph: the reason, torch's words for it (its stack left out) and
    the frames torch found it from (`Found from:`), the user's line among them when torch gives one."""

    compile_id: CompileId | None
    reason: str  # a CudagraphSkipReason
    detail: str
    user_stack: tuple[StackFrame, ...] = ()
    count: int = 1
    rerecord_limit: int | None = None  # the re-record limit (or 2.15's threshold) a function went over


@dataclass(frozen=True)
class CudagraphPartitions:
    """How inductor split a graph for CUDA graphs (`Created N graph partitions: C cudagraphable, ...`)."""

    compile_id: CompileId | None
    partitions: int
    cudagraphable: int


@dataclass(frozen=True)
class NonCudagraphableOp:
    """An op of a partition that runs outside CUDA graphs, torch's reason (`cpu ops`, `dynamic shape ops`, or,
    when CUDA graphs are off, `partition includes all ops when cudagraphs is disabled`) and its stack."""

    compile_id: CompileId | None
    node: str
    reason: str
    op: str | None  # the FX target, e.g. aten.mm.default
    user_stack: tuple[StackFrame, ...] = ()
    cause: str = "other"  # the reason as a CudagraphSkipReason (`cpu ops`: cpu_device)

    @property
    def cudagraphs_off(self) -> bool:
        """CUDA graphs were not asked for (no `reduce-overhead`): every op is listed, none is a problem."""
        return self.reason.startswith("partition includes all ops when cudagraphs is disabled")


@dataclass(frozen=True)
class CudagraphRecording:
    """A CUDA graph tree recorded for one set of input sizes (`None`: a graph without symbolic sizes)."""

    compile_id: CompileId | None
    size_key: str | None
    count: int = 1


class CudagraphRunMode(StrEnum):
    WARMUP = "warmup"  # the first call, run eagerly before recording
    RECORD = "record"  # the call that records the CUDA graph
    EAGER = "eager"  # a later call that missed the fast path and ran eagerly
    RERECORD = "rerecord"  # a recorded graph whose invariants failed, recorded again


@dataclass(frozen=True)
class CudagraphRun:
    """Calls of a CUDA-graph-managed function that did not replay a graph, counted per mode (torch logs no
    line for a replay, the fast path)."""

    compile_id: CompileId | None
    function: str  # torch's name for it, e.g. partition_0
    mode: str  # a CudagraphRunMode
    count: int = 1
    reason: str | None = None  # a re-recording's cause, as torch words it (`reason=...`; 2.13+), first line
    changed_input: str | None = None  # the graph input whose address changed (`input name: primals_2`)
    user_stack: tuple[StackFrame, ...] = ()  # where that input was made (`input stack trace:`)


@dataclass(frozen=True)
class CudagraphSizesWarning:
    """torch's warning that CUDA graphs were recorded for many distinct input sizes."""

    compile_id: CompileId | None
    distinct_sizes: int


@dataclass(frozen=True)
class CudagraphOverwritten:
    """torch's error: a CUDA graph's output was read after a later replay overwrote it. `producer`: the line
    that made the output (torch's `Stack trace:`); `stack`: where it was read (the traceback), when known."""

    message: str
    producer: StackFrame | None
    stack: tuple[StackFrame, ...] = ()
    gradient: bool = False  # a .grad allocated during capture, overwritten by a later backward


class WarningKind(StrEnum):
    TF32_DISABLED = "tf32_disabled"  # fp32 matmuls on an Ampere+ GPU without TensorFloat32
    CUDAGRAPH_PENDING_BACKWARD = "cudagraph_pending_backward"  # the CUDA-graph fast path missed
    CUDAGRAPH_RERECORD_LIMIT = "cudagraph_rerecord_limit"  # a function re-recorded up to the limit (2.15)
    OTHER = "other"


@dataclass(frozen=True)
class TorchWarning:
    """A warning torch raised from its compile stack, as Python showed it (the warnings module), classified."""

    kind: str  # a WarningKind
    category: str  # UserWarning, ...
    message: str
    file: str
    line: int
    count: int = 1


@dataclass
class LogHealth:
    """What the reader could not use. Counted, never fatal unless --strict. The one record of it: the readers
    count into it, and a report keeps a snapshot (its figures in the JSON, its words in the notes)."""

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

    def snapshot(self) -> LogHealth:
        """A copy of the counts as they are now, for a report to keep (a reader may go on counting)."""
        return replace(self)

    def in_words(self) -> str:
        """The whole health as people read it: `1 bad line(s), 2 record(s) of unknown kind in 74 lines; 12
        records read` (never the record's fields)."""
        lines = f"{self.lines} line{'s' if self.lines != 1 else ''}"
        records = f"{self.records} record{'s' if self.records != 1 else ''} read"
        return f"{self.describe() or 'nothing unreadable'} in {lines}; {records}"

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


@dataclass
class EventLog:
    """Everything one capture produced, in log order per kind."""

    dynamo_starts: list[DynamoStart] = field(default_factory=list)
    graph_breaks: list[GraphBreak] = field(default_factory=list)
    recompiles: list[Recompile] = field(default_factory=list)
    metrics: list[CompilationMetrics] = field(default_factory=list)
    backward_metrics: list[BackwardCompilationMetrics] = field(default_factory=list)
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
    cudagraph_skips: list[CudagraphSkip] = field(default_factory=list)
    cudagraph_partitions: list[CudagraphPartitions] = field(default_factory=list)
    non_cudagraphable_ops: list[NonCudagraphableOp] = field(default_factory=list)
    cudagraph_recordings: list[CudagraphRecording] = field(default_factory=list)
    cudagraph_runs: list[CudagraphRun] = field(default_factory=list)
    cudagraph_size_warnings: list[CudagraphSizesWarning] = field(default_factory=list)
    cudagraph_overwrites: list[CudagraphOverwritten] = field(default_factory=list)
    torch_warnings: list[TorchWarning] = field(default_factory=list)
    health: LogHealth = field(default_factory=LogHealth)

    def add(self, event: object) -> None:
        getattr(self, _LIST_FOR[type(event)]).append(event)

    def extend(self, other: EventLog) -> None:
        """Append another log's events (e.g. a second trace file of the same rank) and its health."""
        for name in _LIST_FOR.values():
            getattr(self, name).extend(getattr(other, name))
        self.health.add(other.health)

    @property
    def has_events(self) -> bool:
        """It holds at least one event (its health counts aside)."""
        return any(getattr(self, name) for name in _LIST_FOR.values())

    @property
    def holds_nothing(self) -> bool:
        """No record was read into it, of a kind known or not: what was read holds nothing torch (or the
        capture) wrote. A log of only unknown kinds is still torch's (a newer release's records)."""
        return not self.has_events and self.health.records == 0 and self.health.unknown_kinds == 0


_LIST_FOR = {
    DynamoStart: "dynamo_starts",
    GraphBreak: "graph_breaks",
    Recompile: "recompiles",
    CompilationMetrics: "metrics",
    BackwardCompilationMetrics: "backward_metrics",
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
    CudagraphSkip: "cudagraph_skips",
    CudagraphPartitions: "cudagraph_partitions",
    NonCudagraphableOp: "non_cudagraphable_ops",
    CudagraphRecording: "cudagraph_recordings",
    CudagraphRun: "cudagraph_runs",
    CudagraphSizesWarning: "cudagraph_size_warnings",
    CudagraphOverwritten: "cudagraph_overwrites",
    TorchWarning: "torch_warnings",
}
