"""Builds the report's `compile_time` (model/compile_time.py) from the index, once per report
(`analyze`): each compile's phases from torch's own timers in `compilation_metrics` (the Triton kernels'
compile from `triton_compile_time_us`, max-autotune's benchmarking from `compile_time_autotune_time_us`), the
C++ compile from the `chromium_event` spans of the kernels it compiled, the caches from their
hit/miss/bypass artifacts, and when each compile ran from its start time against the run's start
in the side channel."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from torchcompile_doctor.analysis.compiled_frames import frame_view
from torchcompile_doctor.analysis.index import AnalysisIndex
from torchcompile_doctor.events.model import (
    BackwardCompilationMetrics,
    CompilationMetrics,
    CompileId,
    CompileSpan,
    EventLog,
)
from torchcompile_doctor.model.compile_time import (
    CACHES,
    CacheCounts,
    CompileRecord,
    CompileTime,
    FrameCache,
    FrameCompileTime,
    TraceSpan,
    summed,
)

CPP_SPANS = frozenset({"compile_file", "async_compile.wait"})  # a C++ kernel compiled here; the wait for workers
# on a GPU the wait for workers is the Triton compile (torch's triton_compile_time_us): a C++ kernel is compile_file
CPP_ON_GPU_SPANS = frozenset({"compile_file"})


def cpp_compile_seconds(spans: list[CompileSpan], names: frozenset[str] = CPP_SPANS) -> dict[CompileId, float]:
    """Per compile: the C++ kernel compiles it ran itself and its waits for worker processes (spans of one
    name paired in order; a span left open by a crash counts nothing)."""
    open_spans: dict[tuple[CompileId, str], list[float]] = defaultdict(list)
    seconds: dict[CompileId, float] = defaultdict(float)
    for span in spans:
        if span.compile_id is None or span.name not in names:  # a worker's compile: its time is in the wait
            continue
        key = (span.compile_id, span.name)
        if span.phase == "B":
            open_spans[key].append(span.ts_us)
        elif open_spans[key]:
            begin = open_spans[key].pop()
            if not open_spans[key]:  # nested spans of one name: the outer one holds the inner
                seconds[span.compile_id] += max(span.ts_us - begin, 0.0) / 1e6
    return seconds


def nested_spans(spans: list[CompileSpan], origin_s: float) -> dict[CompileId, tuple[TraceSpan, ...]]:
    """Per compile: its spans with each end paired to the latest open begin of the same name, and its depth
    (the compile's spans still open when it began); times in seconds after `origin_s`. A span left open by a
    crash, or an end without a begin, is left out."""
    open_spans: dict[CompileId, list[tuple[str, float]]] = defaultdict(list)
    closed: dict[CompileId, list[TraceSpan]] = defaultdict(list)
    for span in spans:
        if span.compile_id is None:
            continue
        stack = open_spans[span.compile_id]
        if span.phase == "B":
            stack.append((span.name, span.ts_us))
            continue
        top = len(stack) - 1  # most ends close the latest begin: no search
        depth = top if top >= 0 and stack[top][0] == span.name else _latest_open(stack, span.name)
        if depth is None:
            continue
        _, begin_us = stack.pop(depth)
        seconds = max(span.ts_us - begin_us, 0.0) / 1e6
        closed[span.compile_id].append(TraceSpan(span.name, begin_us / 1e6 - origin_s, seconds, depth))
    return {cid: tuple(sorted(items, key=lambda s: (s.depth, s.start_s))) for cid, items in closed.items()}


def _latest_open(stack: list[tuple[str, float]], name: str) -> int | None:
    return next((i for i in range(len(stack) - 1, -1, -1) if stack[i][0] == name), None)


def phases_of(metrics: CompilationMetrics, cpp_s: float | None, run_compiler: str | None = None) -> dict[str, float]:
    """The compile's seconds by phase, summing to its entire_frame_compile_time_s. torch's
    `triton_compile_time_us` is the Triton kernels' compile where Triton compiled the run's kernels (a GPU), and
    the C++ kernels' asynchronous compile on a CPU (torch 2.13 fills it there too)."""
    total = metrics.compile_time_s
    backend = min(metrics.backend_compile_s or 0.0, total)
    inductor = min(metrics.inductor_compile_s or 0.0, backend)
    within = inductor or backend  # what the kernels' compile and autotuning are part of
    triton_run = "triton" in (metrics.kernel_compiler, run_compiler)
    autotune = min(metrics.autotune_s or 0.0, within)
    triton = min(metrics.async_compile_s or 0.0, within - autotune) if triton_run else 0.0
    cpp = cpp_s if cpp_s is not None else (0.0 if triton_run else (metrics.async_compile_s or 0.0))
    cpp = min(cpp, within - autotune - triton)
    kernels = {"triton_compile": triton, "cpp_compile": cpp, "autotune": autotune}
    spent = triton + cpp + autotune
    if inductor:
        return {"dynamo": total - backend, "aot_autograd": backend - inductor, "inductor": inductor - spent, **kernels}
    return {"dynamo": total - backend, "aot_autograd": backend - spent, "inductor": 0.0, **kernels}


def kernel_compiler(log: EventLog) -> str | None:
    """What compiled the generated kernels: Triton when torch listed the Triton kernels it compiled (a GPU), C++
    when the trace has C++ compile spans or a CPU-only torch wrote it; None when the trace does not say."""
    if any(m.kernel_compiler == "triton" for m in log.metrics):
        return "triton"
    cpu_build = any((m.torch_version or "").endswith("+cpu") for m in log.metrics)
    if cpu_build or any(span.name == "compile_file" for span in log.compile_spans):
        return "cpp"
    return None


def _run_span(log: EventLog) -> tuple[float | None, float | None]:
    """(start, end) of the run in time.time() seconds, from the side channel (None: not recorded)."""
    start = next((b.wall_time for b in log.bootstrap if b.wall_time is not None), None)
    end = next((e.wall_time for e in reversed(log.target_exits) if e.wall_time is not None), None)
    return start, end


def _cache_counts(log: EventLog) -> tuple[dict[CompileId, FrameCache], float, tuple[str, ...]]:
    counts: dict[CompileId, dict[str, list[int]]] = defaultdict(lambda: {c: [0, 0, 0] for c in CACHES})
    saved, reasons = 0.0, []
    for event in log.inductor_cache:
        if event.compile_id is None or event.cache not in CACHES:
            continue
        slot = ("hit", "miss", "bypass").index(event.outcome) if event.outcome in ("hit", "miss", "bypass") else None
        if slot is not None:
            counts[event.compile_id][event.cache][slot] += 1
        saved += event.time_saved_s or 0.0
        if event.outcome == "bypass" and event.detail and event.detail not in reasons:
            reasons.append(f"{event.cache}: {event.detail}")
    result = {
        cid: FrameCache(CacheCounts(*by_cache["fx_graph"]), CacheCounts(*by_cache["aot_autograd"]))
        for cid, by_cache in counts.items()
    }
    return result, saved, tuple(reasons)


def compile_time_breakdown(index: AnalysisIndex) -> CompileTime | None:
    """Where the run's compile time went; None when the log has no compile."""
    log = index.log
    # a graph's backward, compiled by inductor at its first backward call, belongs to its frame's compile time too
    compiles = [m for m in (*log.metrics, *log.backward_metrics) if m.compile_id is not None]
    if not compiles:
        return None
    kernels = _Kernels.of(log)
    cache, saved, reasons = _cache_counts(log)
    run_start, run_end = _run_span(log)
    origin = run_start if run_start is not None else min((m.start_time_us or 0) / 1e6 for m in compiles) or None
    by_frame: dict[tuple[str, int, str], list[CompilationMetrics]] = defaultdict(list)
    for metrics in compiles:
        by_frame[index.frame_key(metrics.compile_id)].append(metrics)
    spans = nested_spans(log.compile_spans, origin) if origin is not None else {}
    frames = [_frame(index, key, items, kernels, cache, origin, spans) for key, items in by_frame.items()]
    frames.sort(key=lambda f: (-f.seconds, f.file, f.line))
    ends = [c.start_s + c.seconds for f in frames for c in f.compiles if c.start_s is not None]
    late = sum(m.compile_time_s for m in compiles if m.compile_id and m.compile_id.frame_compile_id > 0)
    return CompileTime.of(
        tuple(frames),
        run_s=(run_end - run_start) if run_start is not None and run_end is not None else None,
        late_s=float(late),
        last_compile_end_s=max(ends) if ends else None,
        saved_s=saved,
        miss_reasons=reasons,
        kernel_compiler=kernels.compiler,
    )


@dataclass(frozen=True)
class _Kernels:
    """The run's C++ compile seconds per compile, and what compiled its kernels."""

    cpp: dict[CompileId, float]
    compiler: str | None

    @classmethod
    def of(cls, log: EventLog) -> _Kernels:
        compiler = kernel_compiler(log)
        names = CPP_ON_GPU_SPANS if compiler == "triton" else CPP_SPANS
        return cls(cpp_compile_seconds(log.compile_spans, names), compiler)


def _is_backward(metrics: CompilationMetrics) -> bool:
    return isinstance(metrics, BackwardCompilationMetrics)


def _record(
    metrics: CompilationMetrics,
    kernels: _Kernels,
    origin: float | None,
    spans: dict[CompileId, tuple[TraceSpan, ...]],
) -> CompileRecord:
    """One compile (or a graph's backward compile) with its phases; the trace's spans and C++ compiles are the
    frame compile's, not its backward's."""
    backward = _is_backward(metrics)
    own = metrics.compile_id if metrics.compile_id is not None and not backward else None
    start = metrics.start_time_us / 1e6 - origin if metrics.start_time_us and origin is not None else None
    return CompileRecord(
        compile_id=f"{metrics.compile_id} backward" if backward else str(metrics.compile_id),
        start_s=start,
        seconds=metrics.compile_time_s,
        phases=phases_of(metrics, kernels.cpp.get(own) if own in kernels.cpp else None, kernels.compiler),
        failed=metrics.fail_type is not None,
        backward=backward,
        spans=spans.get(own, ()) if own is not None else (),
    )


def _frame(
    index: AnalysisIndex,
    key: tuple[str, int, str],
    items: list[CompilationMetrics],
    kernels: _Kernels,
    cache: dict[CompileId, FrameCache],
    origin: float | None,
    spans: dict[CompileId, tuple[TraceSpan, ...]],
) -> FrameCompileTime:
    file, line, co_name = key
    ordered = sorted(items, key=lambda m: (m.compile_id or CompileId(0, 0), _is_backward(m)))
    records = [_record(metrics, kernels, origin, spans) for metrics in ordered]
    guarded = [m for m in items if m.guard_count is not None]
    heaviest = max(guarded, key=lambda m: m.guard_count or 0) if guarded else None
    counted = next((c for c in index.log.call_counts if (c.function_file, c.function_line) == (file, line)), None)
    seconds, phases = summed(tuple(records))
    return FrameCompileTime(
        function=frame_view(index, key)[1],
        file=file,
        line=line,
        display_file=index.code.display(file) if file != "?" else file,
        seconds=seconds,
        phases=phases,
        compiles=tuple(records),
        cache=sum((cache[m.compile_id] for m in items if m.compile_id in cache), FrameCache()),
        guard_count=heaviest.guard_count if heaviest else None,
        guard_latency_us=heaviest.guard_latency_us if heaviest else None,
        calls=counted.calls if counted else None,
        last_compile_call=counted.last_compile_call if counted else None,
        co_name=co_name,
    )
