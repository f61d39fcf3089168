"""The compile-time facts in words, for the text formats: total and phases, warm-up, caches."""

from __future__ import annotations

from torchcompile_doctor.model.compile_time import CompileTime

SHOWN_FROM_S = 1.0  # a run that compiled for less than this gets no compile-time lines


def _late_calls(data: CompileTime) -> str:
    """The functions that still compiled after their first call, latest first (the warm-up in calls)."""
    late = [f for f in data.frames if f.calls and f.last_compile_call and f.last_compile_call > 1]
    late.sort(key=lambda f: (-(f.last_compile_call or 0), f.function))
    return "; ".join(f"`{f.function}` still compiling at call {f.last_compile_call} of {f.calls}" for f in late[:3])


def compile_time_lines(data: CompileTime | None) -> list[str]:
    if data is None:
        return []
    late_calls = _late_calls(data)
    if data.total_s < SHOWN_FROM_S:  # a short compile: only a warm-up that lasted beyond the first call
        return [f"warm-up: {late_calls}"] if late_calls else []
    share = f" ({data.share_of_run:.0%} of the {data.run_s:.1f} s run)" if data.share_of_run is not None else ""
    phases = " · ".join(f"{data.labels[p]}: {data.phases[p]:.2f} s" for p in data.shown)
    backward = data.backward_s
    # torch's frame compile time (the summary's) leaves out the backward graphs inductor compiled at their first call
    lazy = f" ({backward:.2f} s of it compiling backward graphs at their first backward)" if backward >= 0.005 else ""
    lines = [f"compile time: {data.total_s:.2f} s{share}{lazy}; {phases}"]
    warm_up = f"warm-up: {data.late_s:.2f} s compiling after each function's first compile (recompiles)"
    if data.last_compile_end_s is not None:
        warm_up += f"; the last compile ended {data.last_compile_end_s:.2f} s into the run"
    if late_calls:
        warm_up += f"; {late_calls}"
    lines.append(warm_up)
    caches = [
        f"{'FX-graph' if name == 'fx_graph' else 'AOT-autograd'} {c.hits} hit(s), {c.misses} miss(es)"
        + (f", {c.bypasses} bypass(es)" if c.bypasses else "")
        for name, c in data.cache_totals().items()
    ]
    saved = f"; the hits saved {data.cache.saved_s:.2f} s a fresh machine pays" if data.cache.saved_s else ""
    lines.append("caches: " + ", ".join(caches) + saved)
    lines += [f"cache bypassed: {reason}" for reason in data.cache.miss_reasons]
    return lines
