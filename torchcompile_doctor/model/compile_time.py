"""The report's `compile_time` object: where a run's compile time went, per compiled frame and in all.

Phases (seconds, summing to torch's `entire_frame_compile_time_s` of each compile):
`dynamo` (bytecode tracing, guards), `aot_autograd` (AOT autograd and the backend's own overhead,
loading cached graphs included), `inductor` (lowering, scheduling, code generation), and the kernels'
compile by what compiled them: `triton_compile` (Triton kernels, a GPU: torch's `triton_compile_time_us`),
`cpp_compile` (C++ kernels, a CPU: the `compile_file` spans, or the wait for worker processes), and
`autotune` (max-autotune's benchmarking of kernel choices: torch's `compile_time_autotune_time_us`). Every
phase is a key of the JSON, with its label in `phase_labels`; `shown_phases` are those a reader is told about
(no C++ phase where no C++ kernel was built). Totals are fields, summed once when a CompileTime or a frame is
made (`of`), so the JSON is the fields (model/json.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from torchcompile_doctor.model.json import json_field

PHASES = ("dynamo", "aot_autograd", "inductor", "triton_compile", "cpp_compile", "autotune")
PHASE_LABELS = {
    "dynamo": "Dynamo tracing",
    "aot_autograd": "AOT autograd",
    "inductor": "Inductor lowering and codegen",
    "triton_compile": "Triton kernel compile",
    "cpp_compile": "C++ compile",
    "autotune": "max-autotune benchmarking",
}
# the kernel compile of each kind of kernel (a run's `kernel_compiler`)
KERNEL_PHASES = {"triton": "triton_compile", "cpp": "cpp_compile"}
CACHES = ("fx_graph", "aot_autograd")
_MS = json_field(round_to=3)


def shown_phases(phases: dict[str, float], kernel_compiler: str | None) -> tuple[str, ...]:
    """The phases a reader is told about: the three stages always, a kernel compile where kernels of that kind were
    built (or the run's kernels are of that kind), autotuning where it ran."""
    own = KERNEL_PHASES.get(kernel_compiler or "")
    return tuple(
        p for p in PHASES if p in ("dynamo", "aot_autograd", "inductor") or phases.get(p, 0.0) > 0.0 or p == own
    )


def _summed(parts: list[dict[str, float]]) -> dict[str, float]:
    return {name: sum(part.get(name, 0.0) for part in parts) for name in PHASES}


def summed(compiles: tuple[CompileRecord, ...]) -> tuple[float, dict[str, float]]:
    """A frame's compile seconds and phases: its compiles', summed."""
    return sum(c.seconds for c in compiles), _summed([c.phases for c in compiles])


@dataclass(frozen=True)
class CacheCounts:
    hits: int = 0
    misses: int = 0
    bypasses: int = 0

    def __add__(self, other: CacheCounts) -> CacheCounts:
        return CacheCounts(self.hits + other.hits, self.misses + other.misses, self.bypasses + other.bypasses)


@dataclass(frozen=True)
class FrameCache:
    """A frame's (or the run's) hits, misses and bypasses of each inductor cache."""

    fx_graph: CacheCounts = field(default_factory=CacheCounts)
    aot_autograd: CacheCounts = field(default_factory=CacheCounts)

    def by_name(self) -> dict[str, CacheCounts]:
        """The counts by cache name (CACHES order)."""
        return {"fx_graph": self.fx_graph, "aot_autograd": self.aot_autograd}

    def __add__(self, other: FrameCache) -> FrameCache:
        return FrameCache(self.fx_graph + other.fx_graph, self.aot_autograd + other.aot_autograd)


@dataclass(frozen=True)
class RunCache(FrameCache):
    """The run's cache counts, what its hits saved, and torch's reasons for bypassing a cache."""

    saved_s: float = field(default=0.0, metadata=_MS)  # compile time the caches' hits saved, as torch measured it
    miss_reasons: tuple[str, ...] = ()  # torch's reasons for cache bypasses (and detailed misses)


@dataclass(frozen=True, slots=True)  # a big trace's report holds one per span end torch logged
class TraceSpan:
    """One span of a compile as torch timed it (a `chromium_event` begin/end pair): `dynamo`,
    `entire_frame_compile`, `bytecode_tracing`, `backend_compile`, `compile_file`, ...; `depth` counts the
    compile's spans that were open when it began (0: the outermost)."""

    name: str
    start_s: float  # seconds after the run started, like CompileRecord.start_s
    seconds: float
    depth: int


@dataclass(frozen=True)
class CompileRecord:
    """One compile of a frame: when it started (seconds after the run started) and how long it took."""

    compile_id: str
    start_s: float | None = field(metadata=_MS)
    seconds: float = field(metadata=_MS)
    phases: dict[str, float] = field(metadata=_MS)
    failed: bool = False
    backward: bool = False  # inductor's compile of the graph's backward, at its first backward call
    # torch's own spans of this compile, nested (empty when the trace has none); the HTML page's timeline and its
    # Perfetto file draw them; not in the JSON (the JSON schema has the phases)
    spans: tuple[TraceSpan, ...] = field(default=(), metadata=json_field(skip=True))


@dataclass(frozen=True, kw_only=True)
class FrameCompileTime:
    """A compiled function (one code object): its compiles, their time by phase and the caches they used."""

    function: str
    file: str
    line: int
    seconds: float = field(metadata=_MS)  # its compiles' seconds, summed
    phases: dict[str, float] = field(metadata=_MS)  # and their phases
    cache: FrameCache
    compiles: tuple[CompileRecord, ...]
    guard_count: int | None = None  # the most guards of any of its cache entries
    guard_latency_us: float | None = None  # torch's estimate for that entry
    calls: int | None = None  # how often the compiled function was called (None: not counted)
    last_compile_call: int | None = None  # the last call during which Dynamo compiled (or tried to)
    display_file: str = field(default="", metadata=json_field(skip=True))
    # the code object's name (with file and line, what identifies the frame; not in the JSON)
    co_name: str = field(default="", metadata=json_field(skip=True))

    @property
    def where(self) -> str:
        return f"{self.display_file or self.file}:{self.line}"


@dataclass(frozen=True, kw_only=True)
class CompileTime:
    """The run's compile time: totals, phases, warm-up, caches and each frame's share."""

    total_s: float = field(metadata=_MS)
    phases: dict[str, float] = field(metadata=_MS)
    run_s: float | None = field(default=None, metadata=_MS)  # the target's wall time (from the side channel)
    share_of_run: float | None = None  # total_s / run_s, rounded
    late_s: float = field(default=0.0, metadata=_MS)  # compile time of recompiles: what a loop pays later
    # seconds after the run started when the last compile ended
    last_compile_end_s: float | None = field(default=None, metadata=_MS)
    cache: RunCache = field(default_factory=RunCache)
    frames: tuple[FrameCompileTime, ...]
    notes: tuple[str, ...] = ()
    # "triton" (a GPU), "cpp" (a CPU) or None (nothing compiled kernels): what compiled the kernels
    kernel_compiler: str | None = None
    phase_labels: dict[str, str] = field(default_factory=lambda: dict(PHASE_LABELS))

    @classmethod
    def of(
        cls,
        frames: tuple[FrameCompileTime, ...],
        *,
        run_s: float | None = None,
        late_s: float = 0.0,
        last_compile_end_s: float | None = None,
        saved_s: float = 0.0,
        miss_reasons: tuple[str, ...] = (),
        kernel_compiler: str | None = None,
    ) -> CompileTime:
        """The run's compile time from its frames: the totals, the phases and the caches summed."""
        total = sum(frame.seconds for frame in frames)
        caches = sum((frame.cache for frame in frames), FrameCache())
        return cls(
            total_s=total,
            phases=_summed([frame.phases for frame in frames]),
            run_s=run_s,
            share_of_run=round(total / run_s, 3) if run_s else None,
            late_s=late_s,
            last_compile_end_s=last_compile_end_s,
            cache=RunCache(caches.fx_graph, caches.aot_autograd, saved_s, miss_reasons),
            frames=frames,
            kernel_compiler=kernel_compiler,
        )

    @property
    def labels(self) -> dict[str, str]:
        return self.phase_labels

    @property
    def backward_s(self) -> float:
        """The seconds of backward graphs compiled at their first backward call (in total_s, not in torch's frame
        compile time)."""
        return sum(c.seconds for frame in self.frames for c in frame.compiles if c.backward)

    @property
    def shown(self) -> tuple[str, ...]:
        """The run's phases a reader is told about (shown_phases)."""
        return shown_phases(self.phases, self.kernel_compiler)

    def cache_totals(self) -> dict[str, CacheCounts]:
        """The run's counts by cache name."""
        return self.cache.by_name()
