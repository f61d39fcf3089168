"""The report's `cudagraphs` object: how much of the compiled work ran under CUDA graphs (`mode="reduce-overhead"`),
per compiled graph, and why the rest did not: each skip reason with its op and the user's line, the calls that ran
eagerly, the re-recordings and their cause, the re-record limit. Made from torch's `cudagraphs` log and warnings
(analysis/cudagraph_coverage.py); None in a report of a run that did not ask for CUDA graphs."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from torchcompile_doctor.model.json import json_field


class GraphCoverage(StrEnum):
    """How one compiled graph ran, as torch's log tells it."""

    CUDA_GRAPH = "cuda_graph"  # recorded and replayed as a CUDA graph
    PARTIAL = "partial"  # some of its partitions run outside CUDA graphs (a CPU op, a dynamic-shape op)
    SKIPPED = "skipped"  # torch ran it without CUDA graphs (`skipping cudagraphs due to ...`)
    EAGER_CALLS = "eager_calls"  # recorded, but calls missed the fast path and ran eagerly (a pending backward)
    RERECORD_LIMIT = "rerecord_limit"  # re-recorded up to torch's limit, then run without CUDA graphs
    WARMUP_ONLY = "warmup_only"  # every call was a warm-up (a new input size each time): never recorded
    NOT_CALLED = "not_called"  # no call of it was logged


COVERED = frozenset({GraphCoverage.CUDA_GRAPH})
COVERAGE_WORDS = {
    GraphCoverage.CUDA_GRAPH: "ran as a CUDA graph",
    GraphCoverage.PARTIAL: "partly: some partitions run outside CUDA graphs",
    GraphCoverage.SKIPPED: "skipped: ran without CUDA graphs",
    GraphCoverage.EAGER_CALLS: "recorded, but its calls ran eagerly",
    GraphCoverage.RERECORD_LIMIT: "re-recorded up to torch's limit, then run without CUDA graphs",
    GraphCoverage.WARMUP_ONLY: "never recorded: every call was the warm-up of a new input size",
    GraphCoverage.NOT_CALLED: "no call logged",
}


@dataclass(frozen=True)
class CudagraphSkipSite:
    """One reason torch gave for running (part of) a graph without CUDA graphs, where it stands."""

    reason: str  # a CudagraphSkipReason: mutated_inputs, cpu_device, ...
    detail: str  # torch's words
    op: str | None = None  # the op a partition was cut at (`aten.index_put_.default`), where torch names one
    where: str | None = None  # the user's `file:line`, where torch's stack reaches it
    source: str | None = None  # that line's text
    graphs: tuple[str, ...] = ()  # compile ids
    count: int = 1


@dataclass(frozen=True)
class CudagraphRerecording:
    """A graph recorded again because what it was recorded with changed (an input's address), with torch's cause."""

    function: str  # torch's name for the recorded function, e.g. partition_0
    cause: str  # torch's words: `static input data pointer changed`
    changed_input: str | None = None  # the graph input whose address changed
    where: str | None = None  # where that input was made: the user's `file:line`
    source: str | None = None
    graph: str | None = None  # its compile id
    count: int = 1


@dataclass(frozen=True)
class CudagraphGraph:
    """One compiled graph under CUDA graphs: how it ran and why."""

    compile_id: str
    function: str  # the compiled function, as the user knows it ("" unknown)
    coverage: str  # a GraphCoverage
    calls: dict[str, int] = field(default_factory=dict)  # logged calls by mode: warmup, record, eager, rerecord
    partitions: int | None = None
    cudagraphable: int | None = None  # of those partitions
    reasons: tuple[str, ...] = ()  # the skip reasons that apply to it

    @property
    def covered(self) -> bool:
        return self.coverage in COVERED


@dataclass(frozen=True)
class CudagraphCoverage:
    """The run's compiled graphs under CUDA graphs, and why the rest were not."""

    graphs: tuple[CudagraphGraph, ...]
    covered: int  # graphs that ran as CUDA graphs
    share: float = field(metadata=json_field(round_to=3))  # covered / graphs
    calls: dict[str, int] = field(default_factory=dict)  # every logged call by mode (torch logs no replay)
    skips: tuple[CudagraphSkipSite, ...] = ()
    rerecordings: tuple[CudagraphRerecording, ...] = ()
    rerecord_limit: int | None = None  # the limit torch said a function went over
    limit_hits: int = 0  # functions torch stopped re-recording at the limit
    sizes_recorded: int = 0  # distinct input sizes a CUDA graph tree was recorded for

    @property
    def eager_calls(self) -> int:
        return self.calls.get("eager", 0)

    @property
    def fully_covered(self) -> bool:
        return self.covered == len(self.graphs) and not self.rerecordings and not self.limit_hits
