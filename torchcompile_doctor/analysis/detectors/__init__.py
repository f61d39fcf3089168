"""The detectors, listed in the order they run: each is a pure function from the analysis index and its
rules (the catalogue entries that name it as their `detector`) to findings. A new finding family is one
module here and one line below; a new rule of an existing family is a catalogue entry only."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from torchcompile_doctor.analysis.detectors import (
    breaks,
    compile_time,
    cudagraphs,
    failures,
    fallbacks,
    guards,
    hints,
    outcome,
    precision,
    recompiles,
)
from torchcompile_doctor.analysis.index import AnalysisIndex
from torchcompile_doctor.model.report import Finding
from torchcompile_doctor.rules import Rule

Detector = Callable[[AnalysisIndex, Sequence[Rule]], list[Finding]]

DETECTORS: dict[str, Detector] = {
    "graph_break": breaks.graph_breaks,
    "fallback": fallbacks.fallbacks,  # the frames a break made torch skip (FRAME_SKIPPED)
    "compile_failure": failures.compile_failures,
    "recompile": recompiles.recompiles,  # and the carried-value wording of a resume function's recompile
    "recompile_limit": recompiles.recompile_limit,
    "perf_hint": hints.perf_hints,
    "ddp_split": hints.ddp_splits,
    "guard_heavy_frame": guards.guard_heavy_frames,
    "steady_module_values": guards.steady_module_values,
    "guard_overhead": guards.guard_overhead,
    "python_lambda_guard": guards.python_lambda_guards,
    "repeated_block": compile_time.repeated_blocks,
    "compile_phase": compile_time.dominant_phase,
    "cold_cache": compile_time.cold_cache,
    "warm_cache": compile_time.warm_cache,
    "autotune_time": compile_time.autotune_time,
    "cudagraph_skip": cudagraphs.cudagraph_skips,  # and partitions left out of CUDA graphs (a CPU op)
    "cudagraph_pending_backward": cudagraphs.cudagraph_pending_backward,
    "cudagraph_overwritten": cudagraphs.cudagraph_overwritten,
    "cudagraph_sizes": cudagraphs.cudagraph_sizes,
    "tf32_disabled": precision.tf32_disabled,
    "target_failed": outcome.target_failed,  # and, in a multi-rank run, the launcher's failure
    "nothing_compiled": outcome.nothing_compiled,
}

# Rules reported after the detectors, over their findings rather than the index: where each one runs.
LATER_STEPS: dict[str, str] = {
    "unused_suppression": "analysis/analyze.py, after suppressing findings",
    "rank_divergence": "analysis/multirank.py: a finding on some ranks only",
    "rank_graph_divergence": "analysis/multirank.py: graph counts or compile ids that differ between ranks",
    "rank_log_ends_early": "analysis/multirank.py: a rank whose log stops before the run's end",
}

DETECTOR_NAMES = frozenset(DETECTORS) | frozenset(LATER_STEPS)


def run_detectors(index: AnalysisIndex) -> list[Finding]:
    """Every detector's findings, in the order DETECTORS lists them."""
    from torchcompile_doctor.rules import rules_for_detector

    return [finding for name, detect in DETECTORS.items() for finding in detect(index, rules_for_detector(name))]
