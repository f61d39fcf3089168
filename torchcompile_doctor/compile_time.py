"""The report's `compile_time` object: where a run's compile time went, per compiled frame and in all.

Phases (seconds, summing to torch's `entire_frame_compile_time_s` of each compile):
`dynamo` (bytecode tracing, guards), `aot_autograd` (AOT autograd and the backend's own overhead,
loading cached graphs included), `inductor` (lowering, scheduling, code generation), `cpp_compile`
(the compile of the generated kernels: compiled here or waited for from worker processes). The kernels are
C++ on a CPU and Triton on a GPU; `kernel_compiler` says which the trace shows, and the phase is named for it
(the JSON key stays `cpp_compile`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

PHASES = ("dynamo", "aot_autograd", "inductor", "cpp_compile")
PHASE_LABELS = {
    "dynamo": "Dynamo tracing",
    "aot_autograd": "AOT autograd",
    "inductor": "Inductor lowering and codegen",
    "cpp_compile": "C++ compile",
}
KERNEL_COMPILE_LABELS = {"triton": "Triton kernel compile", "cpp": "C++ compile", None: "kernel compile"}
CACHES = ("fx_graph", "aot_autograd")


def phase_labels(kernel_compiler: str | None) -> dict[str, str]:
    """The phases' names, the kernel compile named for what compiled the kernels (None: the trace does not say)."""
    return {**PHASE_LABELS, "cpp_compile": KERNEL_COMPILE_LABELS.get(kernel_compiler, "kernel compile")}


def _rounded(phases: dict[str, float]) -> dict[str, float]:
    return {name: round(phases.get(name, 0.0), 3) for name in PHASES}


@dataclass(frozen=True)
class CacheCounts:
    hits: int = 0
    misses: int = 0
    bypasses: int = 0

    def as_dict(self) -> dict:
        return {"hits": self.hits, "misses": self.misses, "bypasses": self.bypasses}


@dataclass(frozen=True)
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
    start_s: float | None
    seconds: float
    phases: dict[str, float]
    failed: bool = False
    # torch's own spans of this compile, nested (empty when the trace has none); the HTML page's timeline and its
    # Perfetto file draw them; not in as_dict (the JSON schema has the phases)
    spans: tuple[TraceSpan, ...] = ()

    def as_dict(self) -> dict:
        return {
            "compile_id": self.compile_id,
            "start_s": None if self.start_s is None else round(self.start_s, 3),
            "seconds": round(self.seconds, 3),
            "phases": _rounded(self.phases),
            "failed": self.failed,
        }


@dataclass(frozen=True)
class FrameCompileTime:
    """A compiled function (one code object): its compiles, their time by phase and the caches they used."""

    function: str
    file: str
    line: int
    display_file: str
    compiles: tuple[CompileRecord, ...]
    cache: dict[str, CacheCounts]
    guard_count: int | None = None  # the most guards of any of its cache entries
    guard_latency_us: float | None = None  # torch's estimate for that entry
    calls: int | None = None  # how often the compiled function was called (None: not counted)
    last_compile_call: int | None = None  # the last call during which Dynamo compiled (or tried to)
    co_name: str = ""  # the code object's name (with file and line, what identifies the frame; not in the JSON)

    @property
    def seconds(self) -> float:
        return sum(c.seconds for c in self.compiles)

    @property
    def phases(self) -> dict[str, float]:
        return {name: sum(c.phases.get(name, 0.0) for c in self.compiles) for name in PHASES}

    @property
    def where(self) -> str:
        return f"{self.display_file or self.file}:{self.line}"

    def as_dict(self) -> dict:
        return {
            "function": self.function,
            "file": self.file,
            "line": self.line,
            "seconds": round(self.seconds, 3),
            "phases": _rounded(self.phases),
            "cache": {name: self.cache.get(name, CacheCounts()).as_dict() for name in CACHES},
            "compiles": [c.as_dict() for c in self.compiles],
            "guard_count": self.guard_count,
            "guard_latency_us": self.guard_latency_us,
            "calls": self.calls,
            "last_compile_call": self.last_compile_call,
        }


@dataclass(frozen=True)
class CompileTime:
    """The run's compile time: totals, phases, warm-up, caches and each frame's share."""

    frames: tuple[FrameCompileTime, ...]
    run_s: float | None = None  # the target's wall time (from the capture's side channel)
    late_s: float = 0.0  # compile time of recompiles: what a loop pays after each function's first call
    last_compile_end_s: float | None = None  # seconds after the run started when the last compile ended
    cache_saved_s: float = 0.0  # compile time the caches' hits saved, as torch measured it
    miss_reasons: tuple[str, ...] = ()  # torch's reasons for cache bypasses (and detailed misses)
    notes: tuple[str, ...] = field(default=())
    kernel_compiler: str | None = None  # "triton" (a GPU), "cpp" (a CPU) or None: what compiled the kernels

    @property
    def labels(self) -> dict[str, str]:
        return phase_labels(self.kernel_compiler)

    @property
    def total_s(self) -> float:
        return sum(frame.seconds for frame in self.frames)

    @property
    def phases(self) -> dict[str, float]:
        return {name: sum(frame.phases[name] for frame in self.frames) for name in PHASES}

    @property
    def share_of_run(self) -> float | None:
        return round(self.total_s / self.run_s, 3) if self.run_s else None

    def cache_totals(self) -> dict[str, CacheCounts]:
        totals = {}
        for name in CACHES:
            counts = [frame.cache.get(name, CacheCounts()) for frame in self.frames]
            totals[name] = CacheCounts(
                sum(c.hits for c in counts), sum(c.misses for c in counts), sum(c.bypasses for c in counts)
            )
        return totals

    def as_dict(self) -> dict:
        return {
            "total_s": round(self.total_s, 3),
            "phases": _rounded(self.phases),
            "run_s": None if self.run_s is None else round(self.run_s, 3),
            "share_of_run": self.share_of_run,
            "late_s": round(self.late_s, 3),
            "last_compile_end_s": None if self.last_compile_end_s is None else round(self.last_compile_end_s, 3),
            "cache": {
                **{name: counts.as_dict() for name, counts in self.cache_totals().items()},
                "saved_s": round(self.cache_saved_s, 3),
                "miss_reasons": list(self.miss_reasons),
            },
            "frames": [frame.as_dict() for frame in self.frames],
            "notes": list(self.notes),
        }
