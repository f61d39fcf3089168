"""The detectors, listed in the order they run: each is a pure function from the analysis index, the facts
`analyze` derives once (Derived) and its rule set to findings, bound to the catalogue by its Binding (its name,
how many rules it takes, its parameters and its facts; rules/binding.py). A new finding family is one module here
and one line below; a new rule of an existing family is a catalogue entry only. The steps that report rules after
the detectors, over their findings, declare their bindings where they run (LATER_STEPS)."""

from __future__ import annotations

import functools
from typing import Protocol, TypeVar, cast

from torchcompile_doctor.analysis import rank_rules, suppressions
from torchcompile_doctor.analysis.detectors import (
    breaks,
    compile_cost,
    cudagraph_use,
    failures,
    fallbacks,
    guard_cost,
    outcome,
    perf_hints,
    precision,
    recompiles,
)
from torchcompile_doctor.analysis.detectors.detector import Derived
from torchcompile_doctor.analysis.index import AnalysisIndex
from torchcompile_doctor.model.report import Finding
from torchcompile_doctor.rules.binding import Binding, Params, RuleSet, bind
from torchcompile_doctor.rules.catalogue import load_catalogue

P = TypeVar("P", bound=Params)


class RunsDetector(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def binding(self) -> Binding[Params]: ...

    def run(self, index: AnalysisIndex, derived: Derived, rule_sets: dict[str, RuleSet[Params]]) -> list[Finding]: ...


DETECTORS: tuple[RunsDetector, ...] = (
    breaks.DETECTOR,
    fallbacks.DETECTOR,  # the frames a break made torch skip (FRAME_SKIPPED)
    failures.DETECTOR,
    recompiles.RECOMPILE_DETECTOR,  # and the carried-value wording of a resume function's recompile
    recompiles.LIMIT_DETECTOR,
    perf_hints.PERF_HINT_DETECTOR,
    perf_hints.DDP_SPLIT_DETECTOR,
    guard_cost.HEAVY_FRAME_DETECTOR,
    guard_cost.STEADY_VALUES_DETECTOR,
    guard_cost.OVERHEAD_DETECTOR,
    guard_cost.LAMBDA_GUARD_DETECTOR,
    compile_cost.REPEATED_BLOCK_DETECTOR,
    compile_cost.COMPILE_PHASE_DETECTOR,
    compile_cost.COLD_CACHE_DETECTOR,
    compile_cost.WARM_CACHE_DETECTOR,
    compile_cost.AUTOTUNE_TIME_DETECTOR,
    cudagraph_use.SKIP_DETECTOR,  # and partitions left out of CUDA graphs (a CPU op)
    cudagraph_use.PENDING_BACKWARD_DETECTOR,
    cudagraph_use.OVERWRITTEN_DETECTOR,
    cudagraph_use.SIZES_DETECTOR,
    cudagraph_use.COVERAGE_DETECTOR,  # the report's `cudagraphs`: how much ran under CUDA graphs, and why not
    precision.DETECTOR,
    outcome.TARGET_FAILED_DETECTOR,  # and, in a multi-rank run, the launcher's failure
    outcome.NOTHING_COMPILED_DETECTOR,
)

# Rules reported after the detectors, over their findings rather than the index: their bindings, where they run.
LATER_STEPS: dict[Binding[Params], str] = {
    suppressions.UNUSED_SUPPRESSION: "analysis/suppressions.py, after suppressing findings",
    rank_rules.RANK_DIVERGENCE: "analysis/multirank.py: a finding on some ranks only",
    rank_rules.RANK_GRAPH_DIVERGENCE: "analysis/multirank.py: graph counts or compile ids that differ between ranks",
    rank_rules.RANK_LOG_ENDS_EARLY: "analysis/multirank.py: a rank whose log stops before the run's end",
}

BINDINGS: tuple[Binding[Params], ...] = tuple(d.binding for d in DETECTORS) + tuple(LATER_STEPS)


@functools.cache
def rule_sets() -> dict[str, RuleSet[Params]]:
    """The catalogue bound to every detector and later step, checked once per process."""
    return bind(load_catalogue(), BINDINGS)


def rules_of(binding: Binding[P]) -> RuleSet[P]:
    """The rule set of one binding (a later step's)."""
    return cast(RuleSet[P], rule_sets()[binding.detector])


def run_detectors(index: AnalysisIndex, derived: Derived) -> list[Finding]:
    """Every detector's findings, in the order DETECTORS lists them."""
    sets = rule_sets()
    return [finding for detector in DETECTORS for finding in detector.run(index, derived, sets)]
