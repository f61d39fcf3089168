"""The compile-time facts in words, for the text formats: total and phases, warm-up, caches."""

from __future__ import annotations

from torchcompile_doctor.compile_time import PHASE_LABELS, PHASES, CompileTime

SHOWN_FROM_S = 1.0  # a run that compiled for less than this gets no compile-time lines


def compile_time_lines(data: CompileTime | None) -> list[str]:
    if data is None or data.total_s < SHOWN_FROM_S:
        return []
    share = f" ({data.share_of_run:.0%} of the {data.run_s:.1f} s run)" if data.share_of_run is not None else ""
    phases = " · ".join(f"{PHASE_LABELS[p]}: {data.phases[p]:.2f} s" for p in PHASES)
    lines = [f"compile time: {data.total_s:.2f} s{share}; {phases}"]
    warm_up = f"warm-up: {data.late_s:.2f} s compiling after each function's first compile (recompiles)"
    if data.last_compile_end_s is not None:
        warm_up += f"; the last compile ended {data.last_compile_end_s:.2f} s into the run"
    lines.append(warm_up)
    caches = [
        f"{'FX-graph' if name == 'fx_graph' else 'AOT-autograd'} {c.hits} hit(s), {c.misses} miss(es)"
        + (f", {c.bypasses} bypass(es)" if c.bypasses else "")
        for name, c in data.cache_totals().items()
    ]
    saved = f"; the hits saved {data.cache_saved_s:.2f} s a fresh machine pays" if data.cache_saved_s else ""
    lines.append("caches: " + ", ".join(caches) + saved)
    lines += [f"cache bypassed: {reason}" for reason in data.miss_reasons]
    return lines
